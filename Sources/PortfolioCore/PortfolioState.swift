import Bus
import PortfolioRules
import TickwireClients
import Foundation
import Logging
import Market
import TickwireContract
import Money

/// The one owner of the portfolio's in-memory state: masterdata, transactions and
/// prices from the streams (also kept in the store for offline use), and the upstreams' health.
actor PortfolioState {
    private let store: PortfolioStore
    private let converter: ConverterClient
    private let publish: @Sendable (PortfolioChange) throws -> Void
    private let logger: Logger
    private let now: @Sendable () -> Date

    private var masterdata = Masterdata(assets: [], wallets: [])
    private var transactions: [GNBTransaction] = []
    private var prices: [String: StoredPrice] = [:]
    private var unsavedPrices: [String: StoredPrice] = [:]
    /// rates-fetcher's stream state, as `health` reports it.
    private(set) var fetcher = "waiting for rates-fetcher's snapshot"
    /// The converter's stream state, as `health` reports it.
    private(set) var converterStream = "waiting for the converter's snapshot"

    /// State answering through `store`, converting through `converter`, telling of changes through `publish`.
    init(store: PortfolioStore, converter: ConverterClient, publish: @escaping @Sendable (PortfolioChange) throws -> Void,
         logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.converter = converter
        self.publish = publish
        self.logger = logger
        self.now = now
    }

    // MARK: Streams

    /// Loads what the store kept from earlier runs.
    func restore() async throws {
        for price in try await store.prices() { prices[Valuations.priceKey(asset: price.asset, currency: price.currency)] = price }
        for key in [Topics.assets.topic, Topics.wallets.topic, Topics.transactions.topic] {
            guard let body = try await store.document(key.rawValue), let update = try FetcherUpdate(message: BusMessage(topic: key.rawValue, body: body))
            else { continue }
            apply(update)
        }
    }

    /// Follows rates-fetcher's masterdata and transactions until the stream ends.
    func follow(fetcher events: StreamEvents<FetcherUpdate>) async {
        for await event in events { await applyFetcher(event) }
    }

    /// Follows the converter's prices until the stream ends.
    func follow(prices events: StreamEvents<AssetPrice>) async {
        for await event in events { applyConverter(event) }
    }

    /// Applies rates-fetcher's masterdata and transactions, and keeps them for offline use.
    func applyFetcher(_ event: StreamEvent<FetcherUpdate>) async {
        let updates: [StreamUpdate<FetcherUpdate>]
        switch event {
        case .snapshot(let all): updates = all
        case .update(let one): updates = [one]
        case .unavailable(let reason):
            fetcher = reason
            return
        }
        fetcher = "ok"
        for update in updates where apply(update.value) {
            do {
                try await store.saveDocument(update.topic.rawValue, try Self.envelope(update))
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

    /// An update as the envelope it came in, as the store keeps documents.
    private static func envelope(_ update: StreamUpdate<FetcherUpdate>) throws -> Data {
        func encode<Payload: Codable & Sendable>(_ data: Payload) throws -> Data {
            try Wire.encode(Envelope(type: String(update.topic.kind), seq: update.seq, time: update.time, source: update.source, data: data))
        }
        switch update.value {
        case .assets(let assets): return try encode(assets)
        case .wallets(let wallets): return try encode(wallets)
        case .transactions(let all): return try encode(all)
        default: throw RPCError.internalError("\(update.topic) is not a document the portfolio keeps")
        }
    }

    /// Applies the converter's prices.
    func applyConverter(_ event: StreamEvent<AssetPrice>) {
        let updates: [StreamUpdate<AssetPrice>]
        switch event {
        case .snapshot(let all): updates = all
        case .update(let one): updates = [one]
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
    func savePrices() async throws {
        guard !unsavedPrices.isEmpty else { return }
        let batch = Array(unsavedPrices.values)
        unsavedPrices = [:]
        try await store.savePrices(batch)
    }

    // MARK: Requests

    func addTrade(_ request: AddTradeRequest) async throws -> Trade {
        let validated = try TradeValidation.validate(request, knownAssets: knownAssets, now: now())
        let id = UUID().uuidString.lowercased()
        let trade = try await store.addTrade(validated, id, now())
        if trade.id == id { try changed("trade.added", trade.id) }
        return trade
    }

    func removeTrade(_ request: RemoveTradeRequest) async throws -> Bool {
        guard try await store.removeTrade(request.id) else { throw RPCError.notFound("no trade with id \(request.id)") }
        try changed("trade.removed", request.id)
        return true
    }

    func trades() async throws -> [Trade] { try await store.trades() }

    func holdings(_ request: HoldingsRequest) async throws -> Valuation {
        let currency = try Currency(code: request.currency ?? "USD")
        let trades = try await store.trades()
        let foreign = trades.filter { $0.currency != currency.code }
        var converted: [String: ExactDecimal] = [:]
        var warnings: [String] = []
        if !foreign.isEmpty {
            do {
                let items = try foreign.map { CurrencyAmount(amount: try $0.amount * $0.price, currency: $0.currency) }
                let total = try await converter.total(TotalRequest(items: items, to: currency.code))
                for (trade, item) in zip(foreign, total.items) { converted[trade.id] = item.converted }
            } catch {
                warnings.append("costs in other currencies could not be converted: \(error)")
            }
        }
        return try Valuations.valuation(
            trades: trades, prices: prices, currency: currency, convertedCosts: converted,
            offline: converterStream != "ok", now: now(), warnings: warnings)
    }

    func watch(_ request: WatchlistRequest) async throws -> [String] {
        let asset = try TradeValidation.knownAsset(request.asset, knownAssets: knownAssets)
        if try await store.watch(asset, now()) { try changed("watchlist.added", asset) }
        return try await store.watchlist()
    }

    func unwatch(_ request: WatchlistRequest) async throws -> [String] {
        let asset = request.asset.uppercased()
        if try await store.unwatch(asset) { try changed("watchlist.removed", asset) }
        return try await store.watchlist()
    }

    func watchlist() async throws -> [String] { try await store.watchlist() }

    func wallets() throws -> WalletGroups {
        guard !masterdata.wallets.isEmpty else { throw RPCError.unavailable("no wallets yet: rates-fetcher's masterdata has not arrived (\(fetcher))") }
        return Valuations.walletGroups(masterdata)
    }

    func assets() -> Masterdata { masterdata }

    func products() throws -> [ProductSummary] {
        guard !transactions.isEmpty else { throw RPCError.unavailable("no transactions yet: rates-fetcher's GNB feed has not arrived (\(fetcher))") }
        return Valuations.products(transactions)
    }

    func product(_ request: ProductRequest) async throws -> ProductDetail {
        let currency = try Currency(code: request.currency ?? "EUR").code
        let items = transactions.filter { $0.sku == request.sku }.map { CurrencyAmount(amount: $0.amount, currency: $0.currency) }
        guard !items.isEmpty else { throw RPCError.notFound("no transactions for product \(request.sku)") }
        let total = try await converter.total(TotalRequest(items: items, to: currency, source: "gnb"))
        return ProductDetail(sku: request.sku, currency: total.currency, total: total.total, transactions: total.items)
    }

    private var knownAssets: Set<String> {
        Set(masterdata.assets.map { $0.symbol.uppercased() } + prices.values.map { $0.asset.uppercased() })
    }

    private func changed(_ reason: String, _ subject: String) throws {
        try publish(PortfolioChange(reason: reason, subject: subject))
    }
}
