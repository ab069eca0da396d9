import Foundation
import PostgresNIO

/// A PostgreSQL database named by a URL, `postgres://user:password@host:port/database` (or `postgresql://`), as
/// `--database` takes it; the password is kept out of its description.
public struct PostgresDatabaseURL: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port (5432 when the URL names none).
    public var port: Int
    /// Whom to log in as.
    public var username: String
    /// The password, if the URL has one.
    public var password: String?
    /// The database (the user's name when the URL names none, as libpq does).
    public var database: String

    /// Whether `text` names a PostgreSQL database rather than a SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The database `text` names; throws saying what is missing or wrong, never repeating the password.
    public init(_ text: String) throws(PostgresURLError) {
        guard Self.isPostgres(text) else {
            throw PostgresURLError("a PostgreSQL URL starts with postgres:// or postgresql://")
        }
        guard let components = URLComponents(string: text) else {
            throw PostgresURLError("not a URL of the form postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError("it names no host (postgres://user:password@host:port/database)")
        }
        guard let username = components.user, !username.isEmpty else {
            throw PostgresURLError("it names no user (postgres://user:password@host:port/database)")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw PostgresURLError("port \(port) is not between 1 and 65535")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else { throw PostgresURLError("the database name \(path.debugDescription) has a /") }
        let unknown = (components.queryItems ?? []).map(\.name).filter { $0 != "sslmode" }
        guard unknown.isEmpty else {
            throw PostgresURLError("unknown parameter \(unknown.joined(separator: ", ")); only sslmode=disable is understood")
        }
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value, mode != "disable" {
            throw PostgresURLError("sslmode=\(mode) is not supported: the portfolio connects without TLS (sslmode=disable)")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username
        self.password = components.password
        self.database = path.isEmpty ? username : path
    }

    /// The URL with its password replaced by `***`: what logs show.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }

    /// A client configuration for this database, without TLS.
    public var configuration: PostgresClient.Configuration {
        PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }
}

/// Why a `--database` URL names no PostgreSQL database it could reach.
public struct PostgresURLError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    public let reason: String

    /// An error saying `reason`.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
