@_exported import BusContract
