@_exported import TickwireClients
