import Bus
import Foundation
import Logging
import Market
import Messages
import Money

/// The one owner of the portfolio's in-memory state: masterdata, transactions and
/// prices from the stream (also kept in the store for offline use), and the upstreams' health.
actor PortfolioState {
    private let store: PortfolioStore
    private let converter: RPCClient
    private let publisher: Publisher
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

    init(store: PortfolioStore, converter: RPCClient, publisher: Publisher, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.converter = converter
        self.publisher = publisher
        self.logger = logger
        self.now = now
    }

    // MARK: Streams

    /// Loads what the store kept from earlier runs.
    func restore() async throws {
        for price in try await store.prices() { prices[Valuations.priceKey(asset: price.asset, currency: price.currency)] = price }
        for key in [Topics.assets, Topics.wallets, Topics.transactions] {
            if let body = try await store.document(key.rawValue) {
                _ = apply(try BusMessage(topic: key.rawValue, body: body))
            }
        }
    }

    /// Applies rates-fetcher's masterdata and transactions, and keeps them for offline use.
    func applyFetcher(_ event: SubscriberEvent) async {
        let messages: [BusMessage]
        switch event {
        case .snapshot(_, _, let all): messages = all
        case .message(let one): messages = [one]
        case .unavailable(let reason):
            fetcher = reason
            return
        }
        let applied = messages.filter(apply)
        fetcher = "ok"
        for message in applied {
            do {
                try await store.saveDocument(message.topic.rawValue, message.body)
            } catch {
                logger.error("could not store an upstream document", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            }
        }
    }

    /// Takes in one masterdata or transactions message; `true` when it was one and decoded.
    private func apply(_ message: BusMessage) -> Bool {
        do {
            switch message.topic {
            case Topics.assets: masterdata.assets = try message.decode([Asset].self).data
            case Topics.wallets: masterdata.wallets = try message.decode([Wallet].self).data
            case Topics.transactions: transactions = try message.decode([GNBTransaction].self).data
            default: return false
            }
            return true
        } catch {
            logger.warning("dropped an undecodable message", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            return false
        }
    }

    /// Applies the converter's prices.
    func applyConverter(_ event: SubscriberEvent) {
        let messages: [BusMessage]
        switch event {
        case .snapshot(_, _, let all): messages = all
        case .message(let one): messages = [one]
        case .unavailable(let reason):
            converterStream = reason
            return
        }
        converterStream = "ok"
        for message in messages {
            guard let price = try? message.decode(AssetPrice.self).data else {
                logger.warning("dropped an undecodable price", metadata: ["topic": "\(message.topic)"])
                continue
            }
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
                let total = try await converter.call("total", params: TotalRequest(items: items, to: currency.code), as: TotalResult.self)
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
        let total = try await converter.call("total", params: TotalRequest(items: items, to: currency, source: "gnb"), as: TotalResult.self)
        return ProductDetail(sku: request.sku, currency: total.currency, total: total.total, transactions: total.items)
    }

    private var knownAssets: Set<String> {
        Set(masterdata.assets.map { $0.symbol.uppercased() } + prices.values.map { $0.asset.uppercased() })
    }

    private func changed(_ reason: String, _ subject: String) throws {
        try publisher.publish(PortfolioChange(reason: reason, subject: subject), on: Topics.portfolioChanged)
    }
}
