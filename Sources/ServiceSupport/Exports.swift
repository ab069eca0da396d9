@_exported import Bus
@_exported import TickwireClients
