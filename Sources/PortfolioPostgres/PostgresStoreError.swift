import BusContract
import Metrics
import NIOCore
import PostgresNIO

/// Why the PostgreSQL store could not answer: its database cannot be reached, refused the request, or a stored row
/// cannot be read back.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible, RPCErrorConvertible {
    /// The database is down, restarting, refusing connections, went away or stopped answering mid-request (the reason
    /// given): a write was rolled back or never began, unless the database committed it just before the answer was lost.
    case unavailable(String)
    /// A column's text is not what was written.
    case corrupt(String)
    /// The database refused the request for a reason of its own: its SQLSTATE and message (a wrong password 28P01, a
    /// missing database 3D000, a permission denied 42501), or postgres-nio's error code when the server sent none.
    case refused(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): "the portfolio cannot reach its PostgreSQL database (\(reason)): the change may not have been recorded"
        case .corrupt(let detail): "corrupt portfolio database: \(detail)"
        case .refused(let reason): "the portfolio's PostgreSQL database refused the request: \(reason)"
        }
    }

    /// `unavailable` is -32000 (retrying later with the same `requestId` is safe: a write the database did commit
    /// answers its first result), `corrupt` and `refused` internal.
    public var rpcError: RPCError {
        switch self {
        case .unavailable: .unavailable("\(description); retry later with the same requestId (a change that was recorded answers as it did)")
        case .corrupt, .refused: .internalError(description)
        }
    }

    /// How often the store found its database unavailable.
    static let counter = Counter(label: "tickwire_portfolio_database_unavailable_total")

    /// Counts a refusal of kind `kind` (its SQLSTATE, or postgres-nio's error code).
    static func countRefusal(_ kind: String) {
        Counter(label: "tickwire_portfolio_database_errors_total", dimensions: [("kind", kind)]).increment()
    }

    /// What `error` (of the database, not of the request's own rules) says in words, with its kind for the counter; nil
    /// for an error that is not the database's. postgres-nio describes its errors generically on purpose: this reads the
    /// server's SQLSTATE and message (never the connection's configuration, so never its password).
    static func refusal(_ error: any Error) -> (kind: String, reason: String)? {
        switch error {
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return ("\(error.code)", "\(error.code)") }
            return (state, "\(state): \(error.serverInfo?[.message] ?? "no message")")
        case let error as PostgresDecodingError:
            return ("decoding", "column \(error.columnName) does not read as \(error.targetType) (\(error.code))")
        default:
            return nil
        }
    }

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
