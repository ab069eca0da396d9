import Bus
import PresenterViews
import TickwireClients
import Foundation
import Hummingbird
import Logging
import Market
import TickwireContract
import Money
import Prometheus
import ServiceSupport
import BusContract
import Tracing

/// The dashboard over HTTP: a page per screen, the same views as JSON under
/// `/api/views/<screen>`, live prices as Server-Sent Events, forms, `/health` and `/metrics`; its
/// scripts and stylesheet under `/static/`; behind ``DashboardSecurity``'s limits, headers, CSRF
/// tokens and login.
struct WebServer {
    let screens: Screens
    let state: PresenterState
    let broadcast: PriceBroadcast
    let watch: StateWatch
    let plugins: Plugins
    let portfolio: PortfolioClient
    let fetcher: RatesFetcherClient
    let icons: IconStore
    let runtime: Runtime
    let security: DashboardSecurity
    let sessions = DashboardSessions()
    let importDrafts = ImportDrafts()

    /// The Hummingbird application bound to `host:port`.
    func application(host: String, port: Int) -> some ApplicationProtocol {
        let router = Router()
        // Each request in a server span, continuing a `traceparent` header if the request has one.
        router.add(middleware: TracingMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: BodyLimitMiddleware(maxBytes: security.maxBodyBytes))
        if let token = security.token { router.add(middleware: LoginMiddleware(token: token, sessions: sessions)) }
        router.add(middleware: CSRFMiddleware())
        router.add(middleware: PluginLinksMiddleware(plugins: plugins))
        router.get("/static/:file") { _, context in staticFile(context.parameters.get("file") ?? "") }
        router.get("/login") { request, _ in loginPage(request, failed: false) }
        router.post("/login") { request, _ in await logIn(request) }
        router.get("/") { _, _ in Response.redirect(to: "/coins", type: .found) }
        for screen in ["assets", "wallets", "coins", "portfolio", "books", "products"] {
            router.get(RouterPath(stringLiteral: "/\(screen)")) { request, _ in await page(screen, request) }
        }
        router.get("/coins/:symbol") { request, context in
            await page("coin", request, extra: ["symbol": context.parameters.get("symbol") ?? ""])
        }
        router.get("/books/:book") { request, context in
            await page("book", request, extra: ["book": context.parameters.get("book") ?? ""])
        }
        router.get("/products/:sku") { request, context in
            await page("product", request, extra: ["sku": context.parameters.get("sku") ?? ""])
        }
        router.get("/api/views/:screen") { request, context in
            let rendered = await render(context.parameters.get("screen") ?? "", request, extra: [:])
            return json(rendered.view, status: rendered.status)
        }
        router.post("/coins/:symbol/trades") { request, context in
            await addTrade(symbol: context.parameters.get("symbol") ?? "", request)
        }
        router.post("/coins/:symbol/watch") { _, context in
            await watch(context.parameters.get("symbol") ?? "", portfolio.watch)
        }
        router.post("/coins/:symbol/unwatch") { _, context in
            await watch(context.parameters.get("symbol") ?? "", portfolio.unwatch)
        }
        router.post("/portfolio/import") { request, _ in await postImport(request) }
        router.get("/portfolio/import") { request, _ in await previewImport(request) }
        router.post("/portfolio/import/confirm") { request, _ in await confirmImport(request) }
        router.get("/portfolio/export.csv") { request, _ in await exportActivities(.csv, request) }
        router.get("/portfolio/export.json") { request, _ in await exportActivities(.json, request) }
        router.get("/portfolio/trades/:id/remove") { request, context in await confirmRemoval(id: context.parameters.get("id") ?? "", request) }
        router.post("/portfolio/trades/:id/remove") { request, context in await removeActivity(id: context.parameters.get("id") ?? "", request) }
        router.get("/portfolio/history") { request, _ in await activityHistory(request) }
        router.post("/coins/add") { request, _ in await addCoin(request) }
        router.post("/coins/:symbol/remove") { request, context in await removeCoin(context.parameters.get("symbol") ?? "", request) }
        router.get("/plugins/:name") { request, context in await pluginPage(context.parameters.get("name") ?? "", request) }
        router.post("/plugins/:name/call") { request, context in await callPlugin(context.parameters.get("name") ?? "", request) }
        router.get("/icons/:file") { _, context in await icon(context.parameters.get("file") ?? "") }
        router.post("/books/refresh") { request, _ in await refreshBooks(request) }
        router.get("/events") { request, _ in events(request) }
        router.get("/events/depth") { request, _ in depthEvents(request) }
        router.get("/health") { _, _ in
            let health = plugins.health(Health(service: runtime.service, started: runtime.started, upstreams: await state.streams))
            return json(health, status: health.status == "ok" ? 200 : 503)
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(bytes: await runtime.metricsText())))
        }
        let logger = runtime.logger
        return Application(
            router: router,
            server: .http1(configuration: security.serverConfiguration),
            configuration: .init(address: .hostname(host, port: port), serverName: "tickwire-presenter"),
            onServerRunning: { channel in
                // With port 0 the system picks one: say which, for people and tests.
                logger.info("dashboard listening", metadata: ["url": "http://\(host):\(channel.localAddress?.port ?? port)"])
            },
            logger: logger)
    }

    // MARK: Pages

    /// A screen as a page, its forms carrying the reader's CSRF token (a new one set as a cookie when needed).
    /// While the data the page needs has not arrived, it answers at once with the page's frame saying what
    /// it waits for (``Availability``), which its script fills in live.
    private func page(_ screen: String, _ request: Request, extra: [String: String] = [:]) async -> Response {
        let token = CSRF.token(of: request)
        var response: Response
        switch resolve(request, extra: extra, csrf: token.value) {
        case .failed(let failed):
            response = html(failed.html, status: failed.status)
        case .page(let parameters, let page):
            let waits = await watch.availability().waits(screen: screen, parameters: parameters, currency: page.currency)
            if waits.isEmpty {
                let rendered = await screens.render(screen, parameters: parameters, page: page)
                response = html(rendered.html, status: rendered.status)
            } else {
                let context = ViewContext(locale: page.locale, currency: page.currency, now: page.now)
                let view = WaitingView.make(title: Pages.title(screen, parameters: parameters), waits: waits, context: context,
                                            notices: Notices.feedProblems(await state.statuses.values.sorted { $0.feed < $1.feed }, now: page.now))
                response = html(Pages.waiting(view, context: page), status: 200)
            }
        }
        if token.isNew { response.headers[.setCookie] = CSRF.setCookie(token.value) }
        return response
    }

    private func render(_ screen: String, _ request: Request, extra: [String: String], notices: [String] = [], csrf: String = "") async -> RenderedScreen {
        switch resolve(request, extra: extra, csrf: csrf) {
        case .failed(let failed): failed
        case .page(let parameters, let page): await screens.render(screen, parameters: parameters, page: page, notices: notices)
        }
    }

    /// A request resolved: its parameters and page context, or the page of what is wrong with it.
    private enum Resolved {
        case page([String: String], PageContext)
        case failed(RenderedScreen)
    }

    /// The parameters of a request (its query, then `extra`) and the page context they ask for; a bad locale
    /// or currency is a 400 page.
    private func resolve(_ request: Request, extra: [String: String], csrf: String) -> Resolved {
        let query = PageContext.parseQuery(request.uri.query ?? "")
        var parameters = Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        parameters.merge(extra) { _, new in new }
        let now = Date()
        do {
            let context = try ViewContext.resolve(
                locale: parameters["locale"], acceptLanguage: request.headers[.acceptLanguage],
                currency: parameters["currency"], now: now)
            return .page(parameters, PageContext(context, path: request.uri.path, query: query, csrfToken: csrf))
        } catch {
            let fallback = PageContext(ViewContext(now: now), path: request.uri.path, query: [])
            let view = ErrorView.make(title: "Bad request", message: error.description, lastGood: nil, context: ViewContext(now: now))
            return .failed(RenderedScreen(status: 400, view: .error(view), html: Pages.error(view, context: fallback)))
        }
    }

    // MARK: Forms

    /// The trade form of the coin page: an activity of any kind (a buy when absent), amount and price empty for none
    /// (a fee activity, a transfer out), an optional fee in its own currency (the trade's when absent), and the portfolio it
    /// goes into ("main" when empty; a new name starts a portfolio).
    struct TradeForm: Decodable {
        var portfolio: String?
        var kind: String?
        var amount: String?
        var price: String?
        var currency: String
        var feeAmount: String?
        var feeCurrency: String?
        var date: String
        var requestId: String
    }

    /// `POST /coins/{symbol}/trades`: the activity added to the form's portfolio, then back to the coin's page showing that
    /// portfolio (`?portfolio=` unless it is "main") with `added=1`; a refusal (an invalid portfolio name among them) is a
    /// notice on the coin's page, the form showing the portfolio named.
    private func addTrade(symbol: String, _ request: Request) async -> Response {
        let back = "/coins/\(symbol.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        var extra = ["symbol": symbol]
        do {
            let form = try await decodeForm(TradeForm.self, request)
            let name = ScreenBuilder.portfolioName(form.portfolio)
            extra["portfolio"] = name
            let day = try Date.ISO8601FormatStyle().year().month().day().parse(form.date)
            func decimal(_ text: String?) throws -> ExactDecimal? {
                guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
                return try ExactDecimal(text)
            }
            guard let kind = ActivityKind(rawValue: form.kind ?? ActivityKind.buy.rawValue) else {
                throw RPCError.invalidParams("kind must be one of \(ActivityKind.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(form.kind ?? "")\"")
            }
            let fee = try decimal(form.feeAmount).map { CurrencyAmount(amount: $0, currency: form.feeCurrency ?? form.currency) }
            let trade = AddTradeRequest(
                kind: kind, asset: symbol, amount: try decimal(form.amount) ?? .zero, price: try decimal(form.price) ?? .zero,
                currency: form.currency, fee: fee, date: day, requestId: form.requestId, portfolio: name)
            let added = try await portfolio.addTrade(trade)
            runtime.logger.info("trade submitted", metadata: [
                "id": "\(added.id)", "asset": "\(added.asset)", "requestId": "\(form.requestId)", "portfolio": "\(added.portfolio)",
            ])
            let shown = name == PortfolioView.mainPortfolio ? [] : [PageContext.QueryItem(name: "portfolio", value: name)]
            return Response.redirect(to: PageContext.url(path: back, query: shown + [.init(name: "added", value: "1")]), type: .normal)
        } catch {
            let message = "The trade was not added: \(ScreenBuilder.describe(error))"
            return await formError(message, screen: "coin", request, extra: extra)
        }
    }

    private func watch(_ symbol: String, _ change: @Sendable (WatchlistRequest) async throws -> [String]) async -> Response {
        do {
            _ = try await change(WatchlistRequest(asset: symbol))
            return Response.redirect(to: "/coins", type: .normal)
        } catch {
            return html(errorPage("The watch list was not changed: \(ScreenBuilder.describe(error))"), status: 400)
        }
    }

    /// `POST /coins/add` (`coin`: a CoinGecko id, symbol or name): rates-fetcher's `coins.add`, then back to the
    /// list once the coin's first price has reached this presenter (or after 3 s); an unknown coin is a notice.
    private func addCoin(_ request: Request) async -> Response {
        struct AddCoinForm: Decodable { var coin: String }
        do {
            let form = try await decodeForm(AddCoinForm.self, request)
            let change = try await fetcher.addCoin(CoinRequest(coin: form.coin))
            if let symbol = change.coin.symbol { await settle { await state.prices(of: symbol).isEmpty == false } }
            return Response.redirect(to: "/coins", type: .normal)
        } catch {
            return await formError("The coin was not added: \(ScreenBuilder.describe(error))", screen: "coins", request, extra: [:])
        }
    }

    /// `POST /coins/{symbol}/remove`: rates-fetcher's `coins.remove`, then back to the list once the retraction
    /// has reached this presenter (or after 3 s).
    private func removeCoin(_ symbol: String, _ request: Request) async -> Response {
        do {
            let change = try await fetcher.removeCoin(CoinRequest(coin: symbol))
            let removed = change.coin.symbol ?? symbol.uppercased()
            await settle { await !state.coins.tracked.contains(removed.uppercased()) }
            return Response.redirect(to: "/coins", type: .normal)
        } catch {
            return await formError("The coin was not removed: \(ScreenBuilder.describe(error))", screen: "coins", request, extra: [:])
        }
    }

    /// Waits until `done` holds, at most 3 s: a change made upstream reaches the page that follows it.
    private func settle(_ done: @Sendable () async -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline, await !done() {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func refreshBooks(_ request: Request) async -> Response {
        struct RefreshForm: Decodable { var `return`: String? }
        let target = (try? await decodeForm(RefreshForm.self, request))?.return ?? "/books"
        let back = target.hasPrefix("/books") ? target : "/books"
        do {
            _ = try await fetcher.refresh(RefreshRequest(feed: "bitso"))
            return Response.redirect(to: back, type: .normal)
        } catch {
            return html(errorPage("The books could not be refreshed: \(ScreenBuilder.describe(error))"), status: 503)
        }
    }

    private func decodeForm<Form: Decodable>(_ type: Form.Type, _ request: Request) async throws -> Form {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return try URLEncodedFormDecoder().decode(type, from: String(buffer: body))
    }

    private func formError(_ message: String, screen: String, _ request: Request, extra: [String: String]) async -> Response {
        let rendered = await render(screen, request, extra: extra, notices: [message], csrf: CSRF.token(of: request).value)
        return html(rendered.html, status: 400)
    }

    private func errorPage(_ message: String) -> String {
        let context = ViewContext(now: Date())
        let view = ErrorView.make(title: "Not done", message: message, lastGood: nil, context: context)
        return Pages.error(view, context: PageContext(context, path: "/", query: []))
    }

    // MARK: Static files and login

    /// `/static/<name>`: the pages' stylesheet and scripts.
    private func staticFile(_ name: String) -> Response {
        let file: (type: String, text: String)? = name == "tickwire.css" ? ("text/css; charset=utf-8", Stylesheet.css)
            : Scripts.files[name].map { ("text/javascript; charset=utf-8", $0) }
        guard let file else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "no file \(name)\n")))
        }
        return Response(status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: file.text)))
    }

    /// `GET /login`: the login form (only with a token; without one there is nothing to log in to).
    private func loginPage(_ request: Request, failed: Bool) -> Response {
        guard security.token != nil else { return Response.redirect(to: "/", type: .found) }
        let token = CSRF.token(of: request)
        let next = PageContext.parseQuery(request.uri.query ?? "").first { $0.name == "next" }?.value ?? "/"
        var response = DashboardPages.html(status: failed ? .unauthorized : .ok, title: "Log in",
                                           body: DashboardPages.login(csrf: token.value, next: next, failed: failed))
        if token.isNew { response.headers[.setCookie] = CSRF.setCookie(token.value) }
        return response
    }

    /// `POST /login`: with the right token, a session cookie and a redirect to the page asked for (a path on
    /// this dashboard only); else the form again.
    private func logIn(_ request: Request) async -> Response {
        struct LoginForm: Decodable {
            var token: String
            var next: String?
        }
        guard let expected = security.token else { return Response.redirect(to: "/", type: .found) }
        guard let form = try? await decodeForm(LoginForm.self, request), constantTimeEqual(form.token, expected) else {
            return loginPage(request, failed: true)
        }
        let next = form.next.flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") && !$0.hasPrefix("/\\") ? $0 : nil } ?? "/"
        var response = Response.redirect(to: next, type: .normal)
        response.headers[.setCookie] = sessions.setCookie(sessions.start())
        return response
    }

    // MARK: Live prices

    /// `GET /events?currency=USD&locale=en_US`: every price in that currency as it changes (none with
    /// `prices=0`) and the kinds of data that changed as a `changed` event (``ChangedEvent``; on connecting, after the
    /// current prices, one marked `initial`). A client that reads slower than prices change gets the latest
    /// price of each asset (``PriceBroadcast``).
    private func events(_ request: Request) -> Response {
        let query = PageContext.parseQuery(request.uri.query ?? "")
        let currency = (query.first { $0.name == "currency" }?.value ?? "USD").uppercased()
        let prices = query.first { $0.name == "prices" }?.value != "0"
        let locale = query.first { $0.name == "locale" }.flatMap { ViewContext.supportedLocale($0.value) }
            ?? ViewContext.locale(fromAcceptLanguage: request.headers[.acceptLanguage])
        let updates = broadcast.subscribe(currency: currency, prices: prices)
        let state = state
        let logger = runtime.logger
        let body = ResponseBody { writer in
            if prices {
                for price in await state.prices(in: currency).values {
                    try await writer.write(ByteBuffer(string: PriceEvent(price, locale: locale).sse))
                }
            }
            try await writer.write(ByteBuffer(string: ChangedEvent(kinds: [], initial: true).sse))
            for await event in updates {
                switch event {
                case .price(let price, let context):
                    let event = ByteBuffer(string: PriceEvent(price, locale: locale).sse)
                    guard let context else {
                        try await writer.write(event)
                        continue
                    }
                    // Sent in a span of the price's trace: its quote's, from rates-fetcher's poll on.
                    try await withSpan("sse.price", context: context, ofKind: .producer) { _ in
                        logger.debug("sse price sent", metadata: ["asset": "\(price.asset)", "currency": "\(price.currency)"])
                        try await writer.write(event)
                    }
                case .changed(let kinds, let trace):
                    // Sent in a span of the change's trace (a trade's), which the page's reload continues.
                    try await TraceContext.withSpan("sse.changed", continuing: trace, ofKind: .producer) {
                        logger.debug("sse changed sent", metadata: ["kinds": "\(kinds.sorted().joined(separator: " "))"])
                        try await writer.write(ByteBuffer(string: ChangedEvent(kinds: kinds.sorted(), initial: false, trace: TraceContext.current).sse))
                    }
                case .keepalive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// `GET /events/depth?feed=bitso-ws&market=BTC-MXN&locale=en_US`: that order book's ladder (``DepthLadder``, with
    /// its last trades) as a `depth` event on connecting, if known, and again whenever its book or trades changed
    /// (looked at on each ``StateWatch`` change of `book` or `trade`, so at most four a second), with keep-alives
    /// between. It ends with the client or the dashboard.
    private func depthEvents(_ request: Request) -> Response {
        let query = PageContext.parseQuery(request.uri.query ?? "")
        let choice = DepthChoice(
            feed: query.first { $0.name == "feed" }?.value ?? "bitso-ws", market: (query.first { $0.name == "market" }?.value ?? "BTC-MXN").uppercased())
        let locale = query.first { $0.name == "locale" }.flatMap { ViewContext.supportedLocale($0.value) }
            ?? ViewContext.locale(fromAcceptLanguage: request.headers[.acceptLanguage])
        let events = DepthEvent.stream(choice, locale: locale, state: state, updates: broadcast.subscribe(prices: false))
        let body = ResponseBody { writer in
            for await event in events { try await writer.write(ByteBuffer(string: event)) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    // MARK: Icons

    /// `/icons/<SYMBOL>-<light|dark>.svg`: the asset's icon from its remote URL (fetched once), else a monogram.
    private func icon(_ file: String) async -> Response {
        let symbol: String, variant: IconPath.Variant
        do {
            (symbol, variant) = try IconPath.parse(file)
        } catch {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "\(error)\n")))
        }
        let icon = await icons.icon(symbol, variant: variant, remote: await remoteIcon(symbol, variant: variant))
        // A monogram stands in until a real icon is known (a plugin's coin may name one later): browsers ask again soon.
        let maxAge = icon.isMonogram ? 300 : 86400
        return Response(status: .ok, headers: [.contentType: icon.contentType, .cacheControl: "public, max-age=\(maxAge)"],
                        body: .init(byteBuffer: ByteBuffer(bytes: icon.data)))
    }

    /// Where `symbol`'s icon lives outside: the masterdata's, else CoinGecko's image; nil for a coin only a plugin
    /// describes, whose `image` the presenter never fetches (it gets a monogram).
    private func remoteIcon(_ symbol: String, variant: IconPath.Variant) async -> String? {
        if let asset = await state.masterdata.assets.first(where: { $0.symbol.uppercased() == symbol }) {
            return variant == .light ? asset.iconLight : asset.iconDark
        }
        let coins = await state.coins
        return coins.tracked.contains(symbol) ? coins[symbol]?.image : nil
    }

    // MARK: Responses

    private func html(_ text: String, status: Int) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "text/html; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private func json(_ view: some Encodable, status: Int) -> Response {
        let data = (try? Wire.encode(view)) ?? Data(#"{"error":"could not encode the view"}"#.utf8)
        return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The Server-Sent Event that tells a page which kinds of data changed (``StateWatch``); `initial` on
/// connecting, when a waiting page fetches itself again in case its data came before it connected. A change that
/// came in a trace (a trade's) carries its `traceparent` and `tracestate`: the page's reload sends them as headers,
/// so it goes on in that trace.
struct ChangedEvent: Encodable {
    let kinds: [String]
    let initial: Bool
    let traceparent: String?
    let tracestate: String?

    init(kinds: [String], initial: Bool, trace: TraceContext? = nil) {
        self.kinds = kinds
        self.initial = initial
        traceparent = trace?.traceparent
        tracestate = trace?.tracestate
    }

    /// The event as it goes on the wire: `event: changed`, `data: {json}` and a blank line.
    var sse: String {
        let json = (try? Wire.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: changed\ndata: \(json)\n\n"
    }
}

/// One Server-Sent Event: a price formatted for the reader.
struct PriceEvent: Encodable {
    let asset: String
    let currency: String
    let text: String
    let raw: String
    let change: String?
    let changeRaw: String?

    init(_ price: AssetPrice, locale: String) {
        asset = price.asset
        currency = price.currency
        text = DisplayAmount.price(price.price, code: price.currency, locale: locale).text
        raw = price.price.description
        change = price.changePercent24h.map { DisplayAmount.percent($0, locale: locale).text }
        changeRaw = price.changePercent24h?.description
    }

    /// The event as it goes on the wire: `data: {json}` and a blank line.
    var sse: String {
        let json = (try? Wire.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "data: \(json)\n\n"
    }
}

/// The Server-Sent Events of one order book's ladder: `event: depth`, `data: {the DepthLadder as JSON}`.
enum DepthEvent {
    /// The event as it goes on the wire.
    static func sse(_ ladder: DepthLadder) -> String {
        let json = (try? Wire.encode(ladder)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: depth\ndata: \(json)\n\n"
    }

    /// The events of `choice`'s book for `locale`: its ladder now, if known, then again each time a change of `book` or
    /// `trade` among `updates` changed it, and a keep-alive comment for each of theirs; it ends when `updates` does
    /// (the dashboard closing) or when the reader stops reading.
    static func stream(
        _ choice: DepthChoice, locale: String, state: PresenterState, updates: PriceBroadcast.Events,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> AsyncStream<String> {
        AsyncStream(bufferingPolicy: .bufferingNewest(4)) { continuation in
            let task = Task {
                var sent: DepthLadder?
                func changed() async -> String? {
                    let (depth, trades) = await state.depth(feed: choice.feed, market: choice.market)
                    guard let depth else { return nil }
                    let ladder = DepthLadder.make(depth: depth, trades: trades, context: ViewContext(locale: locale, now: now()))
                    guard ladder != sent else { return nil }
                    sent = ladder
                    return sse(ladder)
                }
                if let event = await changed() { continuation.yield(event) }
                for await update in updates {
                    switch update {
                    case .changed(let kinds, _) where kinds.contains(RatesFetcherAPI.books.kind) || kinds.contains(RatesFetcherAPI.trades.kind):
                        if let event = await changed() { continuation.yield(event) }
                    case .keepalive:
                        continuation.yield(": keep-alive\n\n")
                    default:
                        continue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
