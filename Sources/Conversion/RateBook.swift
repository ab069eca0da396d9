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

    /// An empty book.
    public init() {}

    /// What a message changed.
    public enum Change: Equatable, Sendable {
        /// A rate of this source.
        case rate(source: String)
        /// A quote of this pair.
        case quote(MarketPair)
    }

    /// Applies one of rates-fetcher's updates; other kinds than rates and quotes are ignored (`nil`).
    /// A rate's source is the update's (`ecb`, `fixer`, `gnb`, ...).
    @discardableResult
    public mutating func apply(_ update: StreamUpdate<FetcherUpdate>) throws -> Change? {
        switch update.value {
        case .rate(let rate):
            // A rate the graph would refuse (a bad code, zero) is refused here, alone,
            // so it cannot take the rest of its source down with it.
            _ = try RateGraph([rate])
            rates[update.source, default: [:]]["\(rate.from)-\(rate.to)"] = rate
            graphs = [:]
            return .rate(source: update.source)
        case .quote(let quote):
            quotes[quote.market, default: [:]][quote.source] = quote
            graphs[Self.marketSource] = nil
            return .quote(quote.market)
        default:
            return nil
        }
    }

    /// Replaces everything with a snapshot's updates; returns how many were refused.
    public mutating func reset(with updates: [StreamUpdate<FetcherUpdate>]) -> Int {
        self = RateBook()
        var failures = 0
        for update in updates {
            do { try apply(update) } catch { failures += 1 }
        }
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

extension Quote {
    /// Whether the quote can be an edge of the `market` graph: a positive price between
    /// two well-formed codes (CoinGecko has one-letter symbols such as "T", which cannot).
    var isUsableRate: Bool {
        last > .zero && (try? Currency(code: market.base)) != nil && (try? Currency(code: market.quote)) != nil
    }
}
