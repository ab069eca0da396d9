// A plugin imports TickwireClients alone: the contract, its values and money come with it.
@_exported import BusContract
@_exported import Market
@_exported import Money
@_exported import PresenterViews
@_exported import TickwireContract
