import Market
import TickwireContract
import Money

/// The prices the converter publishes, kept current update by update.
///
/// Each update re-prices only what it can change: a quote its asset in every display currency, a rate the
/// prices whose path takes its edge (an index from edge to prices says which), a reshaped graph everything.
/// Every price it hands out is exactly what ``Pricing/prices(in:book:)`` would give for the book then.
public struct LivePrices: Sendable {
    /// The currencies every asset is priced in.
    public let currencies: [String]
    private var held: [Key: AssetPrice] = [:]
    private var paths: [Key: [String]] = [:]
    private var dependents: [Edge: Set<Key>] = [:]
    /// Prices whose fraction did not fit: any rate change may mend them.
    private var unsettled: Set<Key> = []

    /// No prices yet; assets will be priced in `currencies`.
    public init(currencies: [String]) { self.currencies = currencies }

    /// Re-prices what `change` (``RateBook/marketChange`` after an update) can have changed in `book`; returns
    /// the prices that differ from the last ones handed out.
    public mutating func reprice(after change: MarketChange, in book: inout RateBook) -> [AssetPrice] {
        switch change {
        case .none:
            return []
        case .reshaped:
            paths = [:]
            dependents = [:]
            unsettled = []
            return reprice(Pricing.pricedAssets(book).flatMap(keys(of:)), in: &book)
        case .quote(let asset), .added(let asset):
            return reprice(keys(of: asset), in: &book)
        case .removed:
            return []
        case .rate(let edge, let asset):
            var affected = dependents[Edge(edge.base, edge.quote)] ?? []
            affected.formUnion(unsettled)
            if let asset { affected.formUnion(keys(of: asset)) }
            return reprice(affected.sorted(), in: &book)
        }
    }

    /// Forgets the prices `book` can no longer give (their asset lost its last quote); returns them, to retract.
    public mutating func dropUnpriced(in book: RateBook) -> [AssetPrice] {
        let priced = Set(Pricing.pricedAssets(book))
        let gone = held.keys.filter { !priced.contains($0.asset) }.sorted()
        var dropped: [AssetPrice] = []
        for key in gone {
            if let price = held.removeValue(forKey: key) { dropped.append(price) }
            record(key, .path([]))
            unsettled.remove(key)
        }
        return dropped
    }

    /// Forgets `asset`'s prices (``MarketChange/removed(asset:)``); returns them, to retract.
    public mutating func drop(_ asset: String) -> [AssetPrice] {
        var dropped: [AssetPrice] = []
        for key in currencies.sorted().map({ Key(asset: asset, currency: $0) }) {
            if let price = held.removeValue(forKey: key) { dropped.append(price) }
            record(key, .path([]))
            unsettled.remove(key)
        }
        return dropped
    }

    /// Every price key of `asset`, none for an ISO fiat or an asset without quotes.
    private func keys(of asset: String) -> [Key] {
        guard Pricing.isPriced(asset) else { return [] }
        return currencies.filter { $0 != asset }.map { Key(asset: asset, currency: $0) }
    }

    private mutating func reprice(_ keys: [Key], in book: inout RateBook) -> [AssetPrice] {
        guard !keys.isEmpty, let graph = Pricing.marketGraph(&book) else { return [] }
        var quotes: [String: [Quote]] = [:]
        var changed: [AssetPrice] = []
        for key in keys {
            let reference = quotes[key.asset] ?? Pricing.referenceQuotes(of: key.asset, in: book)
            quotes[key.asset] = reference
            guard !reference.isEmpty else { continue }
            let repriced = Pricing.price(of: key.asset, in: key.currency, graph: graph, quotes: reference, book: book)
            record(key, repriced.dependence)
            if let price = repriced.price, held[key] != price {
                held[key] = price
                changed.append(price)
            }
        }
        return changed
    }

    /// Files `key` under the edges its price now depends on.
    private mutating func record(_ key: Key, _ dependence: Pricing.Repriced.Dependence) {
        let path: [String]
        switch dependence {
        case .path(let given): path = given
        case .shape, .everyRate: path = []
        }
        if dependence == .everyRate { unsettled.insert(key) } else { unsettled.remove(key) }
        let old = paths[key] ?? []
        guard old != path else { return }
        for edge in Edge.along(old) { dependents[edge]?.remove(key) }
        for edge in Edge.along(path) { dependents[edge, default: []].insert(key) }
        paths[key] = path.isEmpty ? nil : path
    }

    /// An asset and a display currency.
    private struct Key: Hashable, Comparable {
        let asset: String
        let currency: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.asset, lhs.currency) < (rhs.asset, rhs.currency) }
    }

    /// Two currencies a given rate joins, either way round.
    private struct Edge: Hashable {
        let low: String
        let high: String

        init(_ a: String, _ b: String) {
            (low, high) = a < b ? (a, b) : (b, a)
        }

        /// The edges of a path of currencies.
        static func along(_ path: [String]) -> [Edge] {
            zip(path, path.dropFirst()).map { Edge($0, $1) }
        }
    }
}
