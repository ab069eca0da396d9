import BusContract
import Market
import TickwireContract
import Money

/// Every rate the converter knows, kept apart by source, and the graphs built from them.
///
/// Sources are never silently mixed:
/// - `rate.<source>.*` messages (`ecb`, `fixer`, `gnb`, ...) each make a graph of their own;
/// - `market` is the one composite, and it says so: crypto quotes (`quote.<feed>.*`,
///   one feed per pair, preferring coingecko, then bitso, then wazirx, then the rest
///   by name) as asset → quote-currency edges, plus the fiat rates of ``fiatSource``.
public struct RateBook: Sendable {
    /// Feeds in order of preference when several quote the same pair.
    public static let quotePreference = ["coingecko", "bitso", "wazirx"]
    /// The name of the composite crypto + fiat source.
    public static let marketSource = "market"

    private var rates: [String: [String: ExchangeRate]] = [:]
    private var quotes: [MarketPair: [String: Quote]] = [:]
    private var graphs: [String: RateGraph] = [:]
    private var pairsByBase: [String: Set<MarketPair>] = [:]
    /// Whether some rate or quote wrote a code the graph upper-cases: two spellings could then name one
    /// edge, and only a rebuilt graph knows which rate it took.
    private var hasIrregularCodes = false

    /// An empty book.
    public init() {}

    /// What a message changed.
    public enum Change: Equatable, Sendable {
        /// A rate of this source.
        case rate(source: String)
        /// A quote of this pair.
        case quote(MarketPair)
    }

    /// What the last applied message did to the `market` graph and so to the prices read from it.
    public private(set) var marketChange = MarketChange.none

    /// Applies one of rates-fetcher's updates; other kinds than rates and quotes are ignored (`nil`).
    /// A rate's source is the update's (`ecb`, `fixer`, `gnb`, ...). ``marketChange`` says what it did to
    /// the `market` graph, which is updated in place when only a rate along its edges changed.
    @discardableResult
    public mutating func apply(_ update: StreamUpdate<FetcherUpdate>) throws -> Change? {
        switch update.value {
        case .rate(let rate):
            // A rate the graph would refuse (a bad code, zero) is refused here, alone,
            // so it cannot take the rest of its source down with it.
            _ = try RateGraph([rate])
            let key = "\(rate.from)-\(rate.to)"
            hasIrregularCodes = hasIrregularCodes || Self.isIrregular(rate.from) || Self.isIrregular(rate.to)
            let fiat = fiatSource
            let previous = rates[update.source]?[key]
            rates[update.source, default: [:]][key] = rate
            graphs[update.source] = nil
            if fiatSource != fiat || (update.source == fiat && previous == nil) {
                reshapeMarket()
            } else if update.source == fiat, let previous, previous.rate != rate.rate {
                // A usable quote of the same pair is the market's edge; the fiat rate only stands behind it.
                let shadowed = preferredQuote(for: MarketPair(base: rate.from, quote: rate.to))?.isUsableRate == true
                marketChange = shadowed ? .none : changeMarketEdge(from: rate.from, to: rate.to, rate: rate.rate, asset: nil)
            } else {
                marketChange = .none
            }
            return .rate(source: update.source)
        case .quote(let quote):
            let previous = preferredQuote(for: quote.market)
            hasIrregularCodes = hasIrregularCodes || Self.isIrregular(quote.market.base) || Self.isIrregular(quote.market.quote)
            quotes[quote.market, default: [:]][quote.source] = quote
            if previous == nil { pairsByBase[quote.market.base, default: []].insert(quote.market) }
            guard let previous, let current = preferredQuote(for: quote.market) else {
                reshapeMarket()
                return .quote(quote.market)
            }
            if current == previous {
                marketChange = .none
            } else if previous.isUsableRate != current.isUsableRate {
                reshapeMarket()
            } else if current.isUsableRate, previous.last != current.last {
                marketChange = changeMarketEdge(from: current.market.base, to: current.market.quote, rate: current.last, asset: current.market.base)
            } else {
                marketChange = .quote(asset: current.market.base)
            }
            return .quote(quote.market)
        default:
            marketChange = .none
            return nil
        }
    }

    /// Forgets what a retracted topic held: a feed's quote (`quote.<feed>.<BASE>-<QUOTE>`) or a source's rate
    /// (`rate.<source>.<FROM>-<TO>`); other feeds' quotes of the pair stay. `true` when it held one (the
    /// `market` graph is then reshaped).
    @discardableResult
    public mutating func remove(_ topic: Topic) -> Bool {
        guard let source = topic.source.map(String.init) else { return false }
        switch String(topic.kind) {
        case "quote":
            guard let pair = quotes.first(where: { pair, bySource in
                bySource[source] != nil && (try? Topics.quote(feed: source, market: pair))?.topic == topic
            })?.key else { return false }
            quotes[pair]?[source] = nil
            if quotes[pair]?.isEmpty == true {
                quotes[pair] = nil
                pairsByBase[pair.base]?.remove(pair)
                if pairsByBase[pair.base]?.isEmpty == true { pairsByBase[pair.base] = nil }
            }
        case "rate":
            guard let key = rates[source]?.first(where: { _, rate in
                (try? Topics.rate(source: source, from: rate.from, to: rate.to))?.topic == topic
            })?.key else { return false }
            rates[source]?[key] = nil
            if rates[source]?.isEmpty == true { rates[source] = nil }
            graphs[source] = nil
        default:
            return false
        }
        reshapeMarket()
        return true
    }

    /// Drops the `market` graph: its shape, its fiat source or its quoted assets changed.
    private mutating func reshapeMarket() {
        graphs[Self.marketSource] = nil
        marketChange = .reshaped
    }

    /// Sets the `market` graph's given rate `from` → `to`, keeping its shape; reshapes it where it cannot.
    private mutating func changeMarketEdge(from: String, to: String, rate: ExactDecimal, asset: String?) -> MarketChange {
        guard let fromCode = Self.canonical(from), let toCode = Self.canonical(to), fromCode != toCode, !hasIrregularCodes else {
            reshapeMarket()
            return .reshaped
        }
        // An unbuilt graph may be one that failed to build: only a full repricing knows what it gives now.
        guard let updated = graphs[Self.marketSource]?.replacingRate(from: fromCode, to: toCode, with: rate) else {
            reshapeMarket()
            return .reshaped
        }
        graphs[Self.marketSource] = updated
        return .rate(edge: MarketPair(base: fromCode, quote: toCode), asset: asset)
    }

    /// `code` when it is already the upper-case code the graph would use, else nil.
    private static func canonical(_ code: String) -> String? {
        (try? Currency(code: code))?.code == code ? code : nil
    }

    /// Whether the graph would take `code`, but upper-cased.
    private static func isIrregular(_ code: String) -> Bool {
        (try? Currency(code: code)).map { $0.code != code } ?? false
    }

    /// Replaces everything with a snapshot's updates; returns how many were refused.
    public mutating func reset(with updates: [StreamUpdate<FetcherUpdate>]) -> Int {
        self = RateBook()
        var failures = 0
        for update in updates {
            do { try apply(update) } catch { failures += 1 }
        }
        marketChange = .reshaped
        return failures
    }

    /// The fiat source the `market` graph uses: `ecb` when present, else `fixer`, else none.
    public var fiatSource: String? { ["ecb", "fixer"].first { rates[$0]?.isEmpty == false } }

    /// Every source with rates, plus `market` when there are quotes, sorted.
    public var sources: [String] {
        (rates.filter { !$0.value.isEmpty }.keys + (quotes.isEmpty ? [] : [Self.marketSource])).sorted()
    }

    /// How many rates a source holds.
    public func count(of source: String) -> Int {
        source == Self.marketSource ? marketRates().count : rates[source]?.count ?? 0
    }

    /// The preferred quote of each pair, sorted by symbol.
    public var preferredQuotes: [Quote] {
        quotes.keys.sorted().compactMap { preferredQuote(for: $0) }
    }

    /// The preferred quote of each pair whose base is `asset`, sorted by symbol.
    public func preferredQuotes(of asset: String) -> [Quote] {
        (pairsByBase[asset] ?? []).sorted().compactMap { preferredQuote(for: $0) }
    }

    /// The assets quoted against something, sorted.
    public var quotedAssets: [String] { pairsByBase.keys.sorted() }

    /// The preferred feed's quote of `pair`.
    public func preferredQuote(for pair: MarketPair) -> Quote? {
        guard let byFeed = quotes[pair] else { return nil }
        let feed = Self.quotePreference.first { byFeed[$0] != nil } ?? byFeed.keys.sorted().first
        return feed.flatMap { byFeed[$0] }
    }

    /// The graph of `source`, built once per change.
    public mutating func graph(for source: String) throws -> RateGraph {
        if let graph = graphs[source] { return graph }
        let given: [ExchangeRate]
        if source == Self.marketSource {
            given = marketRates()
        } else if let own = rates[source], !own.isEmpty {
            given = own.keys.sorted().compactMap { own[$0] }
        } else {
            throw RPCError(code: RPCError.Code.unknownSource, message: "unknown rate source \"\(source)\"; known: \(sources.joined(separator: ", "))",
                           data: ["source": source])
        }
        let graph = try RateGraph(given)
        graphs[source] = graph
        return graph
    }

    private func marketRates() -> [ExchangeRate] {
        let fiat = fiatSource.flatMap { rates[$0] }.map { own in own.keys.sorted().compactMap { own[$0] } } ?? []
        let crypto = preferredQuotes.filter(\.isUsableRate).map {
            ExchangeRate(from: $0.market.base, to: $0.market.quote, rate: $0.last)
        }
        return fiat + crypto
    }

    /// The source a request without one gets: the fiat source when every currency is an
    /// ISO fiat, else `market`.
    public func defaultSource(for codes: [String]) -> String {
        let allFiat = codes.allSatisfy { Currency.iso($0.uppercased()) != nil }
        if allFiat, let fiatSource { return fiatSource }
        return Self.marketSource
    }
}

/// What an update did to the `market` graph, and so which prices may have changed.
public enum MarketChange: Equatable, Sendable {
    /// Nothing the market's prices read from: another source's rate, a quote that is not preferred.
    case none
    /// The preferred quote of one of `asset`'s pairs changed, but not its rate: the asset's prices may take
    /// another quote's 24 h change or time.
    case quote(asset: String)
    /// The given rate of `edge` changed and the graph kept its shape, so every path stays; the prices whose
    /// path takes this edge (either way) changed, and those of `asset` when a quote of it moved.
    case rate(edge: MarketPair, asset: String?)
    /// The graph's shape, its fiat source or the quoted assets changed (or the book was reset): any price may have.
    case reshaped
}

extension Quote {
    /// Whether the quote can be an edge of the `market` graph: a positive price between
    /// two well-formed codes (CoinGecko has one-letter symbols such as "T", which cannot).
    var isUsableRate: Bool {
        last > .zero && (try? Currency(code: market.base)) != nil && (try? Currency(code: market.quote)) != nil
    }
}
