import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import PresenterCore

@Suite("The dashboard's protections: limits, headers, CSRF, login")
struct DashboardSecurityTests {
    /// Every response, pages, files, refusals and errors alike, carries the security headers, and the
    /// policy allows no inline script or style and no framing.
    @Test func securityHeadersOnEveryResponse() async throws {
        try await InProcessPresenter.mocks().test { client in
            for (uri, method) in [("/coins", HTTPRequest.Method.get), ("/static/tickwire.css", .get), ("/static/live-prices.js", .get),
                                  ("/static/nope.js", .get), ("/api/views/nope", .get), ("/coins/BTC/watch", .post), ("/no-such-page", .get)] {
                let response = try await client.execute(uri: uri, method: method)
                let policy = try #require(response.headers[.contentSecurityPolicy], "\(uri) has a Content-Security-Policy")
                #expect(!policy.contains("unsafe-inline") && policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                #expect(response.headers[.xFrameOptions] == "DENY", "\(uri)")
                #expect(response.headers[.referrerPolicy] == "same-origin", "\(uri)")
            }
            let script = try await client.execute(uri: "/static/live.js", method: .get)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("new EventSource"))
            let page = try await client.execute(uri: "/coins/BTC", method: .get)
            #expect(!page.text.contains("<script>") && !page.text.contains("<style>") && !page.text.contains(" style=\""))
        }
    }

    /// A page sets a SameSite=Strict, HttpOnly CSRF cookie and puts its value in every form.
    @Test func pagesCarryTheCSRFToken() async throws {
        try await InProcessPresenter.mocks().test { client in
            let page = try await client.execute(uri: "/coins/BTC", method: .get)
            let cookie = try #require(page.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.hasPrefix("tickwire_csrf="))
            let token = String(try #require(cookie.split(separator: ";").first?.split(separator: "=").last))
            #expect(token.count == 64)
            #expect(page.text.components(separatedBy: "name=\"csrf\" value=\"\(token)\"").count - 1 == 2, "the watch and trade forms")
            // A browser that has the cookie keeps it: no new one.
            let again = try await client.execute(uri: "/coins", method: .get, headers: [.cookie: "tickwire_csrf=\(token)"])
            #expect(again.headers[.setCookie] == nil)
            #expect(again.text.contains("name=\"csrf\" value=\"\(token)\""))
        }
    }

    /// A form without the token, with another token, or without the cookie is refused with 403 and a page that says
    /// why; nothing changes.
    @Test func formsWithoutTheRightTokenAreRefused() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client)
            let other = CSRF.randomToken()
            let attempts: [(HTTPFields, [(String, String)])] = [
                ([.contentType: "application/x-www-form-urlencoded", .cookie: "tickwire_csrf=\(csrf.value)"], []),
                ([.contentType: "application/x-www-form-urlencoded", .cookie: "tickwire_csrf=\(csrf.value)"], [("csrf", other)]),
                ([.contentType: "application/x-www-form-urlencoded"], [("csrf", csrf.value)]),
                ([.contentType: "application/x-www-form-urlencoded", .cookie: "tickwire_csrf=short"], [("csrf", "short")]),
            ]
            for (headers, fields) in attempts {
                for uri in ["/coins/ETH/watch", "/coins/ETH/trades", "/books/refresh"] {
                    let response = try await client.execute(uri: uri, method: .post, headers: headers,
                                                            body: form(fields + [("amount", "1"), ("price", "1"), ("currency", "USD"), ("date", "2026-01-02"), ("requestId", "x")]))
                    #expect(response.status == .forbidden, "\(uri) \(fields)")
                    #expect(response.text.contains("security token (CSRF)") && response.text.contains("Nothing was changed"))
                }
            }
            #expect(try await presenter.portfolio.watchlist() == [])
            #expect(try await presenter.portfolio.trades(.init()) == [])
        }
    }

    /// A body over the limit is answered 413, whether it declares its length or not; one within passes.
    @Test func bodiesOverTheLimitAre413() async throws {
        let presenter = try InProcessPresenter.mocks(security: DashboardSecurity(maxBodyBytes: 1024))
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client)
            let large = csrf.form([("return", String(repeating: "x", count: 2000))])
            let refused = try await client.execute(uri: "/books/refresh", method: .post, headers: csrf.headers, body: large)
            #expect(refused.status == .contentTooLarge)
            #expect(refused.text.contains("at most 1 KiB"))
            #expect(refused.headers[.contentSecurityPolicy] != nil)
            let small = try await client.execute(uri: "/books/refresh", method: .post, headers: csrf.headers, body: csrf.form([("return", "/books")]))
            #expect(small.status == .seeOther)
        }
        #expect(DashboardSecurity().maxBodyBytes == 64 * 1024)
    }

    /// Header limits go to the HTTP/1 server: over them, a live server answers 431 or closes the connection
    /// rather than reading on; within them it answers.
    @Test func headersOverTheLimitAreRefusedByTheServer() async throws {
        let presenter = try InProcessPresenter.mocks(security: DashboardSecurity(maxHeaderFieldBytes: 1024, maxHeaderBytes: 4096, maxHeaderFields: 20))
        try await presenter.test(.live) { client in
            let fine = try await client.execute(uri: "/static/tickwire.css", method: .get, headers: [.init("X-Small")!: "x"])
            #expect(fine.status == .ok)
            let refused = try? await client.execute(uri: "/static/tickwire.css", method: .get,
                                                    headers: [.init("X-Large")!: String(repeating: "x", count: 8000)])
            #expect(refused == nil || refused?.status == .requestHeaderFieldsTooLarge || refused?.status == .badRequest,
                    "a header over the limit: \(String(describing: refused?.status))")
            var many = HTTPFields()
            for index in 0..<40 { many[HTTPFields.Element.Name("X-Field-\(index)")!] = "x" }
            let tooMany = try? await client.execute(uri: "/static/tickwire.css", method: .get, headers: many)
            #expect(tooMany == nil || tooMany?.status == .requestHeaderFieldsTooLarge || tooMany?.status == .badRequest,
                    "too many header fields: \(String(describing: tooMany?.status))")
        }
        let defaults = DashboardSecurity().serverConfiguration.httpDecoder
        #expect(defaults.maxHeaderFieldSize == 8 * 1024 && defaults.maxHeaderListSize == 32 * 1024 && defaults.maxHeaderFieldCount == 100)
    }

    /// With a token every path needs a login: pages go to the login form, the rest is 401; a wrong token is
    /// refused; the right one sets an HttpOnly, SameSite session cookie that opens everything, as does a bearer header.
    @Test func aTokenRequiresALogin() async throws {
        let presenter = try InProcessPresenter.mocks(security: DashboardSecurity(token: "s3cret-token"))
        try await presenter.test { client in
            let page = try await client.execute(uri: "/coins/BTC?currency=SEK", method: .get)
            #expect(page.status == .found)
            #expect(page.headers[.location] == "/login?next=%2Fcoins%2FBTC%3Fcurrency%3DSEK")
            for uri in ["/api/views/coins", "/events", "/metrics", "/health"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"tickwire\"")
            }
            #expect(try await client.execute(uri: "/coins/ETH/watch", method: .post).status == .unauthorized)
            #expect(try await client.execute(uri: "/static/live-prices.js", method: .get).status == .found, "to the login")
            #expect(try await client.execute(uri: "/static/tickwire.css", method: .get).status == .ok, "the login page's stylesheet")

            let csrf = try await CSRFToken(from: client, path: "/login?next=/coins/BTC")
            let wrong = try await client.execute(uri: "/login", method: .post, headers: csrf.headers,
                                                 body: csrf.form([("token", "guess"), ("next", "/coins/BTC")]))
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("That token is not right."))
            #expect(wrong.headers[.setCookie] == nil)
            let forged = try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                  body: form([("token", "s3cret-token")]))
            #expect(forged.status == .forbidden, "a login form from elsewhere")

            let login = try await client.execute(uri: "/login", method: .post, headers: csrf.headers,
                                                 body: csrf.form([("token", "s3cret-token"), ("next", "/coins/BTC")]))
            #expect(login.status == .seeOther)
            #expect(login.headers[.location] == "/coins/BTC")
            let session = try #require(login.headers[.setCookie])
            #expect(session.hasPrefix("tickwire_session=") && session.contains("HttpOnly") && session.contains("SameSite=Strict"))
            let id = String(try #require(session.split(separator: ";").first))
            let opened = try await client.execute(uri: "/coins/BTC", method: .get, headers: [.cookie: id])
            #expect(opened.status == .ok)
            #expect(try await client.execute(uri: "/api/views/coins", method: .get, headers: [.cookie: "tickwire_session=\(CSRF.randomToken())"]).status == .unauthorized)

            let bearer = try await client.execute(uri: "/api/views/coins", method: .get, headers: [.authorization: "Bearer s3cret-token"])
            #expect(bearer.status == .ok)
            // The scheme's name is case-insensitive (RFC 7235).
            #expect(try await client.execute(uri: "/api/views/coins", method: .get, headers: [.authorization: "bearer s3cret-token"]).status == .ok)
            #expect(try await client.execute(uri: "/health", method: .get, headers: [.authorization: "Bearer s3cret-tokeN"]).status == .unauthorized)

            // After a login, the next page is only a path here: never another site.
            let away = try await client.execute(uri: "/login", method: .post, headers: csrf.headers,
                                                body: csrf.form([("token", "s3cret-token"), ("next", "//evil.example/")]))
            #expect(away.headers[.location] == "/")
        }
    }

    /// Without a token, a loopback address is served; any other refuses to start unless insecure.
    @Test func exposureNeedsATokenOrInsecure() throws {
        for host in ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"] {
            try DashboardSecurity().checkExposure(host: host, insecure: false)
        }
        for host in ["0.0.0.0", "192.168.1.5", "::", "example.com"] {
            #expect(throws: DashboardExposureError.self) { try DashboardSecurity().checkExposure(host: host, insecure: false) }
            try DashboardSecurity().checkExposure(host: host, insecure: true)
            try DashboardSecurity(token: "t").checkExposure(host: host, insecure: false)
        }
        #expect(throws: DashboardExposureError.self) { try DashboardSecurity(token: "").checkExposure(host: "0.0.0.0", insecure: false) }
        let message = DashboardExposureError(host: "0.0.0.0").description
        #expect(message.contains("--dashboard-token") && message.contains("--insecure") && message.contains("TICKWIRE_DASHBOARD_TOKEN"))
    }
}
