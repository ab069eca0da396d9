import BusContract
import Metrics
import NIOCore
import PostgresNIO

/// Why the PostgreSQL store could not answer: its database cannot be reached, or a stored row cannot be read back.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible, RPCErrorConvertible {
    /// The database is down, restarting, refusing connections or went away mid-request (the reason given): a write was
    /// rolled back or never began, unless the database committed it just before it went away.
    case unavailable(String)
    /// A column's text is not what was written.
    case corrupt(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): "the portfolio cannot reach its PostgreSQL database (\(reason)): nothing was recorded"
        case .corrupt(let detail): "corrupt portfolio database: \(detail)"
        }
    }

    /// `unavailable` is -32000 (retrying later with the same `requestId` is safe: a write the database did commit
    /// answers its first result), `corrupt` internal.
    public var rpcError: RPCError {
        switch self {
        case .unavailable: .unavailable("\(description); retry later with the same requestId")
        case .corrupt: .internalError(description)
        }
    }

    /// How often the store found its database unavailable.
    static let counter = Counter(label: "tickwire_portfolio_database_unavailable_total")

    /// Why `error` means the database cannot be reached now, or nil for an error of the request itself.
    static func unavailability(_ error: any Error) -> String? {
        switch error {
        case let error as PSQLError:
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                if let underlying = error.underlying { return "\(error.code): \(underlying)" }
                return "\(error.code)"
            case .server:
                guard let state = error.serverInfo?[.sqlState], unavailableStates.contains(where: state.hasPrefix) else { return nil }
                return "\(state): \(error.serverInfo?[.message] ?? "server error")"
            default:
                return nil
            }
        case let error as IOError:
            return "\(error)"
        case let error as ChannelError:
            return "\(error)"
        default:
            return nil
        }
    }

    /// SQLSTATEs (or their classes) of a server that cannot serve now: connection exceptions, insufficient resources,
    /// operator intervention (shutting down, starting up), a read-only transaction (a standby), a serialization failure
    /// or deadlock (the write was rolled back).
    static let unavailableStates = ["08", "53", "57P", "25006", "40001", "40P01", "58"]
}
