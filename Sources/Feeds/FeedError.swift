/// Why a feed client could not return data. A client never returns partial data instead.
public enum FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with a status outside 2xx and no error body this API is known to send.
    case httpStatus(code: Int, url: String, body: String)
    /// No complete answer before the client's timeout.
    case timedOut(url: String)
    /// The server could not be reached, or the connection failed or sent too much.
    case transport(url: String, message: String)
    /// The body is not what this API sends: truncated, HTML, a field missing or not a number.
    case malformed(url: String, reason: String, body: String)
    /// The API reported an error in its own format (Bitso's `error.code`, fixer's `error.type`, ...).
    case api(source: String, code: String, message: String, url: String)
    /// A test or mock client was asked for data its fixtures do not hold.
    case notInFixtures(String)

    /// One line for logs and for people.
    public var description: String {
        switch self {
        case let .httpStatus(code, url, body):
            "HTTP \(code) from \(url): \(body)"
        case let .timedOut(url):
            "no answer in time from \(url)"
        case let .transport(url, message):
            "cannot fetch \(url): \(message)"
        case let .malformed(url, reason, body):
            "unexpected response from \(url): \(reason); body starts: \(body)"
        case let .api(source, code, message, url):
            "\(source) error \(code): \(message) (\(url))"
        case let .notInFixtures(what):
            "not in the fixtures: \(what)"
        }
    }
}
