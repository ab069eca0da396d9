import BusContract
import Foundation
import Logging
import Market
import TickwireContract
import Money

/// The one owner of the portfolio's in-memory state: masterdata, transactions and
/// prices from the streams (also kept in the store for offline use), and the upstreams' health.
///
/// It answers every method of the portfolio; what it stores, how it converts and where it tells of
/// changes are passed in, so the service and its mock run the same rules.
public actor PortfolioState {
    /// Adds up amounts in one currency: the converter's `total`.
    public typealias Total = @Sendable (TotalRequest) async throws -> TotalResult
    /// An asset's price history in a currency: rates-fetcher's `history`, in the display currency or else converted
    /// into it by the converter's `convert.series` (``PriceHistorySource``).
    public typealias History = @Sendable (_ asset: String, _ currency: String, _ days: Int) async throws -> PriceHistory

    private let store: PortfolioStore
    private let total: Total
    private let publish: @Sendable (PortfolioChange) throws -> Void
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let costBasis: CostBasisMethod
    private let history: History

    private var masterdata = Masterdata(assets: [], wallets: [])
    private var transactions: [GNBTransaction] = []
    private var prices: [String: StoredPrice] = [:]
    private var unsavedPrices: [String: StoredPrice] = [:]
    /// rates-fetcher's stream state, as `health` reports it.
    public private(set) var fetcher = "waiting for rates-fetcher's snapshot"
    /// The converter's stream state, as `health` reports it.
    public private(set) var converterStream = "waiting for the converter's snapshot"

    /// State answering through `store`, adding up through `total`, telling of changes through `publish`; gains and
    /// holdings take the cost of what is sold by `costBasis` unless a request names its method; `performance` values the
    /// past at `history`'s prices (none by default: every range then says its history is missing).
    public init(store: PortfolioStore, total: @escaping Total, publish: @escaping @Sendable (PortfolioChange) throws -> Void,
                logger: Logger, now: @escaping @Sendable () -> Date, costBasis: CostBasisMethod = .fifo,
                history: @escaping History = { asset, currency, _ in throw RPCError.unavailable("no price history source for \(asset) in \(currency)") }) {
        self.costBasis = costBasis
        self.history = history
        self.store = store
        self.total = total
        self.publish = publish
        self.logger = logger
        self.now = now
    }

    // MARK: Streams

    /// Loads what the store kept from earlier runs. A document the store cannot give back (written by an
    /// older version, say) is logged and left for rates-fetcher's next snapshot to replace.
    public func restore() async throws {
        for price in try await store.prices() { prices[Valuations.priceKey(asset: price.asset, currency: price.currency)] = price }
        for key in [Topics.assets.rawValue, Topics.wallets.rawValue, Topics.transactions.rawValue] {
            guard let body = try await store.document(key) else { continue }
            do {
                apply(try StoredDocument.decode(body))
            } catch {
                logger.warning("a stored document could not be read; waiting for rates-fetcher's", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    /// Follows rates-fetcher's masterdata and transactions until the stream ends.
    public func follow(fetcher events: some AsyncSequence<StreamEvent<FetcherUpdate>, Never>) async {
        for await event in events { await applyFetcher(event) }
    }

    /// Follows the converter's prices until the stream ends, each taken in on the actor `within` what the caller
    /// wraps it in (a span of the trace it came in: the quote's, through the converter).
    public func follow(
        prices events: some AsyncSequence<StreamEvent<AssetPrice>, Never>,
        within: @Sendable (TraceContext?, () -> Void) -> Void = { $1() }
    ) async {
        for await event in events {
            within(event.trace) {
                if case .update(let update) = event {
                    logger.debug("price received", metadata: ["topic": "\(update.topic)", "seq": "\(update.seq)"])
                }
                applyConverter(event)
            }
        }
    }

    /// Applies rates-fetcher's masterdata and transactions, and keeps them for offline use.
    public func applyFetcher(_ event: StreamEvent<FetcherUpdate>) async {
        let updates: [StreamUpdate<FetcherUpdate>]
        switch event {
        case .snapshot(let all): updates = all
        case .update(let one): updates = [one]
        // Masterdata and transactions are never retracted; a retracted quote is not the portfolio's to hold.
        case .removed: return
        case .unavailable(let reason):
            fetcher = reason
            return
        }
        fetcher = "ok"
        for update in updates where apply(update.value) {
            do {
                try await store.saveDocument(update.topic.rawValue, try StoredDocument.encode(update.value))
            } catch {
                logger.error("could not store an upstream document", metadata: ["topic": "\(update.topic)", "error": "\(error)"])
            }
        }
    }

    /// Takes in masterdata or transactions; `true` when it was one of them.
    @discardableResult
    private func apply(_ update: FetcherUpdate) -> Bool {
        switch update {
        case .assets(let assets): masterdata.assets = assets
        case .wallets(let wallets): masterdata.wallets = wallets
        case .transactions(let all): transactions = all
        default: return false
        }
        return true
    }

    /// Applies the converter's prices.
    public func applyConverter(_ event: StreamEvent<AssetPrice>) {
        let updates: [StreamUpdate<AssetPrice>]
        switch event {
        case .snapshot(let all): updates = all
        case .update(let one): updates = [one]
        // A retracted price (its coin no longer tracked) stays stored as the last known one, for offline valuations.
        case .removed: return
        case .unavailable(let reason):
            converterStream = reason
            return
        }
        converterStream = "ok"
        for price in updates.map(\.value) {
            let stored = StoredPrice(asset: price.asset, currency: price.currency, price: price.price,
                                     changePercent24h: price.changePercent24h, updatedAt: now())
            let key = Valuations.priceKey(asset: price.asset, currency: price.currency)
            prices[key] = stored
            unsavedPrices[key] = stored
        }
    }

    /// Writes the prices received since the last call.
    public func savePrices() async throws {
        guard !unsavedPrices.isEmpty else { return }
        let batch = Array(unsavedPrices.values)
        unsavedPrices = [:]
        try await store.savePrices(batch)
    }

    // MARK: Requests

    /// Records an activity once per `requestId`, refusing a sell or transfer out of more than is held at its date.
    public func addTrade(_ request: AddTradeRequest) async throws -> Trade {
        var validated = try TradeValidation.validate(request, knownAssets: knownAssets, now: now())
        validated.portfolio = validated.portfolio ?? Trade.mainPortfolio
        let id = UUID().uuidString.lowercased()
        let trade = try await store.addTrade(validated, id, now(), try TradeValidation.author(request.by)) {
            try ActivityLedger.check($0, changed: id)
        }
        if trade.id == id { try changed("trade.added", trade.id, portfolio: trade.portfolio) }
        return trade
    }

    /// Replaces an activity's fields once per `requestId`, refusing a change that would make it or a later sell or
    /// transfer out take more than is held; it stays in its portfolio unless the request names another.
    public func editTrade(_ request: EditTradeRequest) async throws -> Trade {
        var request = request
        request.activity = try TradeValidation.validate(request.activity, knownAssets: knownAssets, now: now())
        let id = request.id
        let written = try await store.editTrade(request, now(), try TradeValidation.author(request.activity.by)) {
            try ActivityLedger.check($0, changed: id)
        }
        if written.acted { try changed("trade.edited", id, portfolio: written.value.portfolio) }
        return written.value
    }

    /// Removes an activity, refusing a removal that would make a later sell or transfer out take more than is held.
    public func removeTrade(_ request: RemoveTradeRequest) async throws -> Bool {
        if let requestID = request.requestId?.trimmingCharacters(in: .whitespacesAndNewlines), requestID.isEmpty || requestID.count > 200 {
            throw RPCError.invalidParams("requestId must be 1 to 200 characters")
        }
        let id = request.id
        let written = try await store.removeTrade(id, request.requestId, now(), try TradeValidation.author(request.by)) {
            try ActivityLedger.check($0, changed: id)
        }
        guard written.value else { throw RPCError.notFound("no trade with id \(request.id)") }
        if written.acted { try changed("trade.removed", id, portfolio: await removedFrom(id)) }
        return true
    }

    /// The portfolio activity `id` was removed from, read from its history; nil (logged) when the history cannot be read:
    /// the removal happened, and is announced all the same.
    private func removedFrom(_ id: String) async -> String? {
        do {
            return try await store.tradeHistory(id).last { $0.action == .removed }?.before?.portfolio
        } catch {
            logger.warning("trade.removed is announced without its portfolio: the activity's history cannot be read",
                           metadata: ["id": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// Every activity of the request's portfolio, oldest first.
    public func trades(_ request: TradesRequest) async throws -> [Trade] {
        try await activities(of: request.portfolio)
    }

    /// Every portfolio with an activity, and `main`, with how many activities each has.
    public func portfolios() async throws -> PortfolioList { PortfolioNames.list(try await store.trades()) }

    /// The audit history of one activity, or of all; with a portfolio, only the revisions of activities that were in it
    /// before or after the change.
    public func tradeHistory(_ request: TradeHistoryRequest) async throws -> [TradeRevision] {
        let history = try await store.tradeHistory(request.id)
        guard request.portfolio != nil else { return history }
        let portfolio = try PortfolioNames.validate(request.portfolio)
        return history.filter { $0.before?.portfolio == portfolio || $0.after?.portfolio == portfolio }
    }

    /// Reads a Ghostfolio file and previews every line as activities of the request's portfolio; unless it is a dry run or
    /// any line (or the file) has an error, adds its new activities in one write, all or none. A line imported into that
    /// portfolio before (its identity seen) adds nothing; the sells and transfers out of the file are checked against what
    /// the portfolio's stored activities and the file's earlier lines hold.
    public func importActivities(_ request: ImportActivitiesRequest) async throws -> ImportPreview {
        let dryRun = request.dryRun ?? true
        let by = try TradeValidation.author(request.by)
        let portfolio = try PortfolioNames.validate(request.portfolio)
        let file = ActivityImport.read(request.content, format: request.format, knownAssets: knownAssets, now: now(), portfolio: portfolio)
        let seen = try await store.seenRequests(file.lines.compactMap(\.request?.requestId))
        var lines = file.lines
        var fileErrors = file.errors
        let fresh = lines.indices.filter { index in lines[index].request.map { !seen.contains($0.requestId) } ?? false }
        if !fresh.isEmpty {
            let stored = try await store.trades().filter { $0.portfolio == portfolio }
            let recorded = now()
            var byID: [String: Int] = [:]
            let pending = fresh.map { index in
                let request = lines[index].request!
                let id = "line-" + String(repeating: "0", count: max(0, 9 - String(lines[index].line).count)) + String(lines[index].line)
                byID[id] = index
                return Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                             currency: request.currency, fee: request.fee, date: request.date, recordedAt: recorded, portfolio: portfolio)
            }
            for overdraft in try ActivityImport.overdrafts(in: stored + pending) {
                let trade = overdraft.trade
                let action = trade.kind == .sell ? "sell" : "transfer out"
                let when = ActivityExport.format(trade.date)
                if let index = byID[trade.id] {
                    lines[index].errors.append(ImportLineError(line: lines[index].line, column: "Quantity", reason:
                        "cannot \(action) \(trade.amount) \(trade.asset) on \(when): \(overdraft.held) \(trade.asset) held then (stored activities and earlier lines)"))
                } else {
                    fileErrors.append(ImportLineError(line: 0, column: nil, reason:
                        "the file's activities would leave the stored \(action) of \(trade.amount) \(trade.asset) on \(when) (trade \(trade.id)) "
                            + "taking more than the \(overdraft.held) \(trade.asset) held then"))
                }
            }
        }
        let preview = lines.map { line in
            let status: ImportLine.Status = !line.errors.isEmpty ? .error : seen.contains(line.request?.requestId ?? "") ? .duplicate : .new
            return ImportLine(line: line.line, status: status, activity: status == .error ? nil : line.request, errors: line.errors)
        }
        let new = preview.filter { $0.status == .new }
        var result = ImportPreview(
            format: request.format, dryRun: dryRun, written: false, new: new.count, duplicates: preview.count { $0.status == .duplicate },
            errors: preview.count { $0.status == .error }, fileErrors: fileErrors, lines: preview)
        if let first = fileErrors.first ?? preview.lazy.flatMap(\.errors).first {
            logger.notice("activities import has errors: nothing written", metadata: [
                "format": "\(request.format.rawValue)", "portfolio": "\(portfolio)", "lines": "\(preview.count)", "errorLines": "\(result.errors)",
                "fileErrors": "\(fileErrors.count)", "first": "line \(first.line) \(first.column ?? "-"): \(first.reason)"])
        }
        guard !dryRun, result.errors == 0, fileErrors.isEmpty, !new.isEmpty else { return result }
        // One id prefix per import and the line's number after it, so activities of the same moment keep the file's order.
        let batch = UUID().uuidString.lowercased()
        let requests = new.compactMap { line in
            line.activity.map { (request: $0, id: batch + "-" + String(repeating: "0", count: max(0, 9 - String(line.line).count)) + String(line.line)) }
        }
        let written = try await store.addTrades(requests, now(), by) { try ActivityLedger.check($0, changed: "") }
        let added = written.count(where: \.acted)
        result.written = true
        logger.info("activities imported", metadata: [
            "format": "\(request.format.rawValue)", "portfolio": "\(portfolio)", "added": "\(added)", "duplicates": "\(result.duplicates)"])
        if added > 0 { try changed("trades.imported", String(added), portfolio: portfolio) }
        return result
    }

    /// Every activity of the request's portfolio, oldest first, as a Ghostfolio file.
    public func exportActivities(_ request: ExportActivitiesRequest) async throws -> ExportedActivities {
        let trades = try await activities(of: request.portfolio)
        return ExportedActivities(format: request.format, activities: trades.count, content: ActivityExport.write(trades, format: request.format, now: now()))
    }

    /// What one portfolio holds, valued in one currency, with the cost basis of the service's method.
    public func holdings(_ request: HoldingsRequest) async throws -> Valuation {
        let currency = try Currency(code: request.currency ?? "USD")
        let trades = try await activities(of: request.portfolio)
        let (converted, warnings) = await convert(trades, to: currency)
        return try Valuations.valuation(
            activities: trades, prices: prices, currency: currency, converted: converted, method: costBasis,
            offline: converterStream != "ok", now: now(), warnings: warnings)
    }

    /// One portfolio's realized and unrealized gains per asset and in total, in one currency, by the request's method or
    /// the service's.
    public func gains(_ request: GainsRequest) async throws -> PortfolioGains {
        let currency = try Currency(code: request.currency ?? "USD")
        let trades = try await activities(of: request.portfolio)
        let (converted, warnings) = await convert(trades, to: currency)
        return try Gains.compute(
            activities: trades, method: request.method ?? costBasis, currency: currency, prices: prices, converted: converted,
            offline: converterStream != "ok", warnings: warnings)
    }

    /// One portfolio's value over `request.range` and the time-weighted return of every range, in one currency, at the
    /// prices of each held asset's history (the last day's in detail) and its latest price; a history that cannot be had
    /// is a warning.
    public func performance(_ request: PerformanceRequest) async throws -> PortfolioPerformance {
        let currency = try Currency(code: request.currency ?? "USD")
        let trades = try await activities(of: request.portfolio)
        let now = now()
        let (converted, warnings) = await convert(trades, to: currency)
        let assets = Set(trades.filter { $0.kind != .fee }.map(\.asset)).sorted()
        let days = Performance.historyDays(activities: trades, now: now)
        let history = history
        let fetched = await withTaskGroup(of: (asset: String, points: [PricePoint], problem: String?).self) { group in
            for asset in assets {
                group.addTask {
                    do {
                        let long = try await history(asset, currency.code, days)
                        let recent = days > 1 ? (try? await history(asset, currency.code, 1))?.points ?? [] : []
                        let splice = recent.first?.time ?? .distantFuture
                        return (asset, long.points.filter { $0.time < splice } + recent, nil)
                    } catch {
                        return (asset, [], "no \(currency.code) price history of \(asset): \((error as? RPCError)?.message ?? String(describing: error))")
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var points: [String: [PricePoint]] = [:]
        var problems = warnings
        for answer in fetched.sorted(by: { $0.asset < $1.asset }) {
            var series = answer.points
            if let latest = prices[Valuations.priceKey(asset: answer.asset, currency: currency.code)] {
                series.append(PricePoint(time: min(latest.updatedAt, now), price: latest.price))
            }
            points[answer.asset] = series
            if let problem = answer.problem { problems.append(problem) }
        }
        return try Performance.compute(
            activities: trades, prices: points, currency: currency, converted: converted, range: request.range ?? .max, now: now,
            warnings: problems)
    }

    /// The amounts of `trades` in other currencies converted into `currency` by the converter's `total`, one call per
    /// currency (all at once) so that one the converter cannot convert leaves the others known; a warning for each that failed.
    private func convert(_ trades: [Trade], to currency: Currency) async -> (converted: [CurrencyAmount: ExactDecimal], warnings: [String]) {
        let items: [CurrencyAmount]
        do {
            items = try Gains.conversions(trades, currency: currency)
        } catch {
            return ([:], ["the amounts of the trades could not be worked out: \(error)"])
        }
        let total = total
        let answers = await withTaskGroup(of: (code: String, items: [CurrencyAmount], result: Result<TotalResult, any Error>).self) { group in
            for (code, items) in Dictionary(grouping: items, by: \.currency) {
                group.addTask {
                    do {
                        return (code, items, .success(try await total(TotalRequest(items: items, to: currency.code))))
                    } catch {
                        return (code, items, .failure(error))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var converted: [CurrencyAmount: ExactDecimal] = [:]
        var warnings: [String] = []
        for answer in answers.sorted(by: { $0.code < $1.code }) {
            switch answer.result {
            case .success(let total):
                for (item, result) in zip(answer.items, total.items) { converted[item] = result.converted }
            case .failure(let error):
                warnings.append("amounts in \(answer.code) could not be converted to \(currency.code): \(error)")
            }
        }
        return (converted, warnings)
    }

    public func watch(_ request: WatchlistRequest) async throws -> [String] {
        let asset = try TradeValidation.knownAsset(request.asset, knownAssets: knownAssets)
        if try await store.watch(asset, now()) { try changed("watchlist.added", asset) }
        return try await store.watchlist()
    }

    public func unwatch(_ request: WatchlistRequest) async throws -> [String] {
        let asset = request.asset.uppercased()
        if try await store.unwatch(asset) { try changed("watchlist.removed", asset) }
        return try await store.watchlist()
    }

    public func watchlist() async throws -> [String] { try await store.watchlist() }

    public func wallets() throws -> WalletGroups {
        guard !masterdata.wallets.isEmpty else { throw RPCError.unavailable("no wallets yet: rates-fetcher's masterdata has not arrived (\(fetcher))") }
        return Valuations.walletGroups(masterdata)
    }

    public func assets() -> Masterdata { masterdata }

    public func products() throws -> [ProductSummary] {
        Valuations.products(try arrivedTransactions())
    }

    public func product(_ request: ProductRequest) async throws -> ProductDetail {
        let currency = try Currency(code: request.currency ?? "EUR").code
        let items = try arrivedTransactions().filter { $0.sku == request.sku }.map { CurrencyAmount(amount: $0.amount, currency: $0.currency) }
        guard !items.isEmpty else { throw RPCError.notFound("no transactions for product \(request.sku)") }
        let total = try await total(TotalRequest(items: items, to: currency, source: "gnb"))
        return ProductDetail(sku: request.sku, currency: total.currency, total: total.total, transactions: total.items)
    }

    /// GNB's transactions; `unavailable` until rates-fetcher's GNB feed has brought them, so that a product asked for
    /// too early is not answered "not found".
    private func arrivedTransactions() throws -> [GNBTransaction] {
        guard !transactions.isEmpty else { throw RPCError.unavailable("no transactions yet: rates-fetcher's GNB feed has not arrived (\(fetcher))") }
        return transactions
    }

    /// The activities of portfolio `name` (`main` when nil), oldest first; an invalid name is invalid params.
    private func activities(of name: String?) async throws -> [Trade] {
        let portfolio = try PortfolioNames.validate(name)
        return try await store.trades().filter { $0.portfolio == portfolio }
    }

    private var knownAssets: Set<String> {
        Set(masterdata.assets.map { $0.symbol.uppercased() } + prices.values.map { $0.asset.uppercased() })
    }

    private func changed(_ reason: String, _ subject: String, portfolio: String? = nil) throws {
        try publish(PortfolioChange(reason: reason, subject: subject, portfolio: portfolio))
    }
}
