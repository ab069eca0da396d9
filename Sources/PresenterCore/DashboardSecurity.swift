import Foundation
import Hummingbird
import HummingbirdCore
import ServiceSupport
import Synchronization

/// How the dashboard protects itself and its readers: request size limits, security headers on every
/// response, a CSRF token on every form that changes state, and, with a token, a login for everything.
public struct DashboardSecurity: Sendable {
    /// The secret that `--dashboard-token` sets: with it every request needs a login (the form at `/login`
    /// sets a session cookie) or `Authorization: Bearer <token>`. Nil: no login.
    public var token: String?
    /// The most a request body may hold (forms are a few hundred bytes); more is answered 413.
    public var maxBodyBytes: Int
    /// The most one header field may hold, and all of them together; more closes the connection with 431.
    public var maxHeaderFieldBytes: Int
    public var maxHeaderBytes: Int
    /// The most header fields a request may have.
    public var maxHeaderFields: Int

    /// Protections with the defaults: bodies of 64 KiB, header fields of 8 KiB, 32 KiB and 100 fields in all.
    public init(token: String? = nil, maxBodyBytes: Int = 64 << 10, maxHeaderFieldBytes: Int = 8 << 10, maxHeaderBytes: Int = 32 << 10, maxHeaderFields: Int = 100) {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderFieldBytes = maxHeaderFieldBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderFields = maxHeaderFields
    }

    /// Refuses to serve an address other machines can reach without a token, unless `insecure`: anyone who
    /// reaches the port could read the portfolio and change it.
    public func checkExposure(host: String, insecure: Bool) throws {
        guard token == nil, !insecure, !Self.isLoopback(host) else { return }
        throw DashboardExposureError(host: host)
    }

    /// Whether `host` is reachable from this machine only.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The HTTP/1 server's header limits.
    var serverConfiguration: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(httpDecoderConfiguration: .init(
            maxHeaderFieldSize: maxHeaderFieldBytes, maxHeaderListSize: maxHeaderBytes, maxHeaderFieldCount: maxHeaderFields))
    }
}

/// The dashboard was asked to listen where others can reach it, without a token.
public struct DashboardExposureError: Error, CustomStringConvertible {
    /// The address asked for.
    public var host: String

    public var description: String {
        "refusing to serve the dashboard on \(host) without a login: anyone who reaches it could read and change the portfolio. "
            + "Give --dashboard-token SECRET (or TICKWIRE_DASHBOARD_TOKEN), listen on 127.0.0.1, or pass --insecure to serve it open anyway."
    }
}

// MARK: Headers

/// Adds the security headers to every response, errors included: a Content-Security-Policy that allows
/// only the dashboard's own files (no inline script or style, no framing), and the headers that keep
/// browsers from sniffing types, framing the pages and leaking their addresses.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headers: [(HTTPFields.Element.Name, String)] {
        [
            (.contentSecurityPolicy, "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
            (.xContentTypeOptions, "nosniff"),
            (.xFrameOptions, "DENY"),
            (.referrerPolicy, "same-origin"),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for (name, value) in Self.headers { response.headers[name] = value }
        return response
    }
}

extension HTTPFields.Element.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

// MARK: Body limit

/// Reads each request body up to `maxBytes` before any route sees it, and answers 413 beyond: a
/// declared `Content-Length` over the limit at once, a streamed body as soon as it passes it.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            return tooLarge()
        }
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // A streamed body longer than the limit (NIO's too-many-bytes error).
            return tooLarge()
        }
        return try await next(request, context)
    }

    private func tooLarge() -> Response {
        DashboardPages.response(
            status: .contentTooLarge, title: "Request too large",
            message: "The dashboard takes requests of at most \(maxBytes / 1024) KiB; this one is larger and was not read.")
    }
}

// MARK: CSRF

/// The double-submit CSRF token: a random value in a `SameSite=Strict`, `HttpOnly` cookie, which every
/// page's forms repeat in a hidden `csrf` field. Another site can make a browser post a form here, but
/// cannot read the cookie to repeat its value (and a Strict cookie is not even sent with its post).
enum CSRF {
    static let cookie = "tickwire_csrf"
    static let field = "csrf"

    /// The token of `request`'s cookie when it has a well-formed one, else a new one to set.
    static func token(of request: Request) -> (value: String, isNew: Bool) {
        if let value = request.cookies[cookie]?.value, isWellFormed(value) { return (value, false) }
        return (randomToken(), true)
    }

    /// The `Set-Cookie` value that gives the browser `token`.
    static func setCookie(_ token: String) -> String {
        "\(cookie)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    /// 32 random bytes in hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
    }

    static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 64 && value.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}

/// Refuses every POST whose form does not carry the CSRF token of its cookie (or whose cookie is missing),
/// with a 403 page that says why and what to do.
struct CSRFMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        let cookie = request.cookies[CSRF.cookie]?.value
        // BodyLimitMiddleware has read the body already: reading it again here takes the buffer it kept.
        let body = try await request.body.collect(upTo: .max)
        let sent = (try? URLEncodedFormDecoder().decode(CSRFField.self, from: String(buffer: body)))?.csrf
        guard let cookie, let sent, CSRF.isWellFormed(cookie), constantTimeEqual(cookie, sent) else {
            return DashboardPages.response(
                status: .forbidden, title: "Form refused",
                message: "This form did not come with the dashboard's security token (CSRF), or with one that does not match: "
                    + "it may have been sent by another site, or from a page opened before the browser's cookies were cleared. "
                    + "Nothing was changed. Reload the page and submit the form again.")
        }
        return try await next(request, context)
    }
}

/// The CSRF token of a posted form.
private struct CSRFField: Decodable {
    var csrf: String?
}

// MARK: Login

/// The sessions of readers who logged in with the dashboard token, by the random id of their cookie;
/// kept in memory (a restart logs everyone out), at most `limit`, each for `lifetime`.
final class DashboardSessions: Sendable {
    static let cookie = "tickwire_session"
    private let sessions = Mutex<[String: ContinuousClock.Instant]>([:])
    private let lifetime: Duration
    private let limit: Int

    init(lifetime: Duration = .seconds(12 * 3600), limit: Int = 1000) {
        self.lifetime = lifetime
        self.limit = limit
    }

    /// A new session's id.
    func start() -> String {
        let id = CSRF.randomToken()
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            if sessions.count >= limit, let oldest = sessions.min(by: { $0.value < $1.value }) { sessions[oldest.key] = nil }
            sessions[id] = now + lifetime
        }
        return id
    }

    /// Whether `id` is a live session.
    func isValid(_ id: String) -> Bool {
        let now = ContinuousClock.now
        return sessions.withLock { ($0[id]).map { $0 > now } ?? false }
    }

    /// The `Set-Cookie` value for session `id`.
    func setCookie(_ id: String) -> String {
        "\(Self.cookie)=\(id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(lifetime.components.seconds)"
    }
}

/// With a token, lets through only requests with a live session cookie or `Authorization: Bearer <token>`,
/// and the login page with its stylesheet: a page asked for without is sent to `/login`, anything else
/// answered 401.
struct LoginMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let sessions: DashboardSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/login" || path == "/static/tickwire.css" || isAuthorized(request) {
            return try await next(request, context)
        }
        if request.method == .get, !path.hasPrefix("/api/"), path != "/events", path != "/metrics", path != "/health" {
            let next = request.uri.string.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "%2F"
            return Response.redirect(to: "/login?next=\(next)", type: .found)
        }
        var response = DashboardPages.response(
            status: .unauthorized, title: "Login needed",
            message: "This dashboard needs its token: log in at /login, or send the header Authorization: Bearer <token>.")
        response.headers[.wwwAuthenticate] = "Bearer realm=\"tickwire\""
        return response
    }

    private func isAuthorized(_ request: Request) -> Bool {
        if let session = request.cookies[DashboardSessions.cookie]?.value, sessions.isValid(session) { return true }
        guard let sent = bearerToken(in: request.headers[.authorization]) else { return false }
        return constantTimeEqual(sent, token)
    }
}

// MARK: Pages

/// The dashboard's own small pages: its refusals and the login form, with the security headers' stylesheet.
enum DashboardPages {
    /// A page that says `message` under `title`, answered with `status`.
    static func response(status: HTTPResponse.Status, title: String, message: String) -> Response {
        html(status: status, title: title, body: "<p class=\"refusal\">\(escapeHTML(message))</p>")
    }

    /// The login form; `next` is where to go after, `failed` whether the last attempt was wrong.
    static func login(csrf: String, next: String, failed: Bool) -> String {
        let notice = failed ? "<div id=\"notices\" class=\"notices\" role=\"alert\"><ul><li>That token is not right.</li></ul></div>" : ""
        return document(title: "Log in", body: """
            \(notice)
            <form id="login" class="card" method="post" action="/login">
            <input type="hidden" name="csrf" value="\(escapeHTML(csrf))">
            <input type="hidden" name="next" value="\(escapeHTML(next))">
            <label>Dashboard token<input name="token" type="password" required autocomplete="current-password" autofocus></label>
            <button type="submit">Log in</button>
            </form>
            """)
    }

    static func html(status: HTTPResponse.Status, title: String, body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: document(title: title, body: body))))
    }

    private static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(escapeHTML(title)) · Tickwire</title>
        <link rel="stylesheet" href="/static/tickwire.css">
        </head>
        <body>
        <main>
        <h1>\(escapeHTML(title))</h1>
        \(body)
        </main>
        </body>
        </html>
        """
    }
}
