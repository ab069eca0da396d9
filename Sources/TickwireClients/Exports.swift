// A plugin imports TickwireClients alone: the contract, its values and money come with it, and so
// does ContractWire, whose conformances let the wire code money, quotes and prices member by member.
@_exported import BusContract
@_exported import ContractWire
@_exported import Market
@_exported import Money
@_exported import PresenterViews
@_exported import TickwireContract
