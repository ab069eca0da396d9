import BusContract
import Foundation
import Market
import TickwireContract
import Money

/// Every rate the converter knows, kept apart by source, and the graphs built from them.
///
/// Sources are never silently mixed:
/// - `rate.<source>.*` messages (`ecb`, `fixer`, `gnb`, ...) each make a graph of their own;
/// - `market` is the one composite, and it says so: crypto quotes (`quote.<feed>.*`, one feed per pair,
///   chosen by ``ranking`` among the feeds whose latest `status.<feed>` is not `stale` or `gone`) as
///   asset → quote-currency edges, plus the fiat rates of ``fiatSource``.
///
/// A feed the ranking does not list (a plugin the operator did not rank) cannot move what the listed feeds and
/// the fiat source price: its quotes are edges only for an asset that is not a fiat (an ISO code or one the fiat
/// source has rates for) and that no listed live feed quotes, and then only one pair of that asset is an edge,
/// so the asset hangs off the graph and is never a step between two other currencies (``edgeQuotes(of:)``).
public struct RateBook: Sendable {
    /// The name of the composite crypto + fiat source.
    public static let marketSource = "market"

    /// The order feeds are preferred in when several quote the same pair.
    public let ranking: FeedRanking
    private var rates: [String: [String: ExchangeRate]] = [:]
    private var quotes: [MarketPair: [String: HeldQuote]] = [:]
    /// The latest state each feed's `status.<feed>` gave.
    private var feedStates: [String: FeedStatus.State] = [:]
    private var graphs: [String: RateGraph] = [:]
    private var pairsByBase: [String: Set<MarketPair>] = [:]
    private var pairsByQuote: [String: Set<MarketPair>] = [:]
    /// Whether some rate or quote wrote a code the graph upper-cases: two spellings could then name one
    /// edge, and only a rebuilt graph knows which rate it took.
    private var hasIrregularCodes = false

    /// A feed's quote and how fresh it is: when rates-fetcher published it (the envelope's time), never the time
    /// the quote claims, which a plugin could set to any date.
    private struct HeldQuote: Sendable {
        var quote: Quote
        var freshness: Date
    }

    /// An empty book choosing among feeds by `ranking`.
    public init(ranking: FeedRanking = .standard) {
        self.ranking = ranking
    }

    /// What a message changed.
    public enum Change: Equatable, Sendable {
        /// A rate of this source.
        case rate(source: String)
        /// A quote of this pair.
        case quote(MarketPair)
        /// The status of this feed.
        case status(feed: String)
    }

    /// What the last applied message did to the `market` graph and so to the prices read from it.
    public private(set) var marketChange = MarketChange.none

    /// Applies one of rates-fetcher's updates; other kinds than rates, quotes and feed statuses are ignored
    /// (`nil`). A rate's source is the update's (`ecb`, `fixer`, `gnb`, ...). ``marketChange`` says what it
    /// did to the `market` graph, which is updated in place when only a rate along its edges changed.
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
            let pair = quote.market
            hasIrregularCodes = hasIrregularCodes || Self.isIrregular(pair.base) || Self.isIrregular(pair.quote)
            // Kept under the topic's feed, which rates-fetcher vouches for (a plugin owns its name), not the source
            // the payload claims: a retraction of the topic then finds it.
            let feed = update.topic.source.map(String.init) ?? quote.source
            let before = edgeQuotes(of: pair.base)
            let newAsset = pairsByBase[pair.base] == nil
            quotes[pair, default: [:]][feed] = HeldQuote(quote: quote, freshness: update.time)
            pairsByBase[pair.base, default: []].insert(pair)
            pairsByQuote[pair.quote, default: []].insert(pair)
            let after = edgeQuotes(of: pair.base)
            let previous = before[pair], current = after[pair]
            if Set(before.keys).union(after.keys).contains(where: { $0 != pair && before[$0] != after[$0] }) {
                // The quote changed which of the asset's pairs are edges, or which feed gives them.
                reshapeMarket()
                return .quote(pair)
            }
            if previous == nil, let current, before.isEmpty, after.count == 1, isLeaf(pair, edge: current) {
                // A new asset hanging off a fiat currency by one edge: no other price moves, and the graph grows by a leaf.
                if var graph = graphs.removeValue(forKey: Self.marketSource), graph.addLeaf(pair.base, to: pair.quote, rate: current.quote.last) {
                    graphs[Self.marketSource] = graph
                }
                marketChange = .added(asset: pair.base)
                return .quote(pair)
            }
            guard let previous, let current else {
                // A quote that is no edge changes nothing, unless its asset is new: its prices may come from the fiat rates.
                if previous == nil, current == nil, !newAsset { marketChange = .none } else { reshapeMarket() }
                return .quote(pair)
            }
            if current == previous {
                marketChange = .none
            } else if previous.quote.isUsableRate != current.quote.isUsableRate {
                reshapeMarket()
            } else if current.quote.isUsableRate, previous.quote.last != current.quote.last {
                marketChange = changeMarketEdge(from: pair.base, to: pair.quote, rate: current.quote.last, asset: pair.base)
            } else if current.quote.isUsableRate, previous.source != current.source {
                // The same rate from another feed, or the same feed said otherwise: every price through the edge
                // names where it came from.
                marketChange = sameMarketEdge(from: pair.base, to: pair.quote, asset: pair.base)
            } else {
                marketChange = .quote(asset: pair.base)
            }
            return .quote(pair)
        case .status(let status):
            let before = Self.standing(feedStates[status.feed])
            feedStates[status.feed] = status.state
            if before != Self.standing(status.state), holdsQuotes(of: status.feed) {
                reshapeMarket()
            } else {
                marketChange = .none
            }
            return .status(feed: status.feed)
        default:
            marketChange = .none
            return nil
        }
    }

    /// Forgets what a retracted topic held: a feed's quote (`quote.<feed>.<BASE>-<QUOTE>`), a source's rate
    /// (`rate.<source>.<FROM>-<TO>`) or a feed's status (`status.<feed>`: the feed counts as live again); other
    /// feeds' quotes of the pair stay. `true` when it held one; ``marketChange`` then says what that did.
    @discardableResult
    public mutating func remove(_ topic: Topic) -> Bool {
        guard let source = topic.source.map(String.init) else { return false }
        switch String(topic.kind) {
        case "quote":
            guard let key = topic.key, let pair = MarketPair(symbol: String(key)), quotes[pair]?[source] != nil,
                  (try? Topics.quote(feed: source, market: pair))?.topic == topic
            else { return false }
            let before = edgeQuotes(of: pair.base)
            quotes[pair]?[source] = nil
            if quotes[pair]?.isEmpty == true {
                quotes[pair] = nil
                pairsByBase[pair.base]?.remove(pair)
                if pairsByBase[pair.base]?.isEmpty == true { pairsByBase[pair.base] = nil }
                pairsByQuote[pair.quote]?.remove(pair)
                if pairsByQuote[pair.quote]?.isEmpty == true { pairsByQuote[pair.quote] = nil }
            }
            let after = edgeQuotes(of: pair.base)
            if before == after, pairsByBase[pair.base] != nil {
                // Another feed's quote, one no edge was made of: nothing priced changes.
                marketChange = .none
                return true
            }
            if after.isEmpty, before.count == 1, let edge = before[pair], isLeaf(pair, edge: edge) {
                // The asset's one edge, hanging off a fiat currency, goes: its prices go and no other moves. The graph is
                // built again when next asked for, so a feed's retracted markets cost one rebuild in all.
                graphs[Self.marketSource] = nil
                marketChange = .removed(asset: pair.base)
                return true
            }
        case "rate":
            guard let key = rates[source]?.first(where: { _, rate in
                (try? Topics.rate(source: source, from: rate.from, to: rate.to))?.topic == topic
            })?.key else { return false }
            rates[source]?[key] = nil
            if rates[source]?.isEmpty == true { rates[source] = nil }
            graphs[source] = nil
        case "status":
            guard topic.key == nil, let state = feedStates.removeValue(forKey: source) else { return false }
            if Self.standing(state) != nil, holdsQuotes(of: source) {
                reshapeMarket()
            } else {
                marketChange = .none
            }
            return true
        default:
            return false
        }
        reshapeMarket()
        return true
    }

    /// Whether `edge`, the quote of `pair`, is its base's one edge hanging off a currency of the fiat source: the base is
    /// no fiat and no edge ends at it, so it is on no path between two other currencies.
    private func isLeaf(_ pair: MarketPair, edge: ChosenQuote) -> Bool {
        guard edge.quote.isUsableRate, !hasIrregularCodes, pair.base != pair.quote, Self.canonical(pair.base) != nil,
              Self.canonical(pair.quote) != nil, !isFiat(pair.base),
              let fiat = fiatSource.flatMap({ rates[$0] }), fiat.values.contains(where: { $0.from == pair.quote || $0.to == pair.quote })
        else { return false }
        return !(pairsByQuote[pair.base] ?? []).contains { chosenQuote(for: $0)?.quote.isUsableRate == true }
    }

    /// What a feed state says of the feed's quotes: nil while it is live (`ok`, `error`, `live`, or no status
    /// yet), else the word a fallback names it by (`stale`, `gone`).
    private static func standing(_ state: FeedStatus.State?) -> String? {
        switch state {
        case .stale, .gone: state?.rawValue
        case .ok, .error, .live, nil: nil
        }
    }

    /// Whether `feed` quotes any pair.
    private func holdsQuotes(of feed: String) -> Bool {
        quotes.values.contains { $0[feed] != nil }
    }

    /// Drops the `market` graph: its shape, its fiat source or its quoted assets changed.
    private mutating func reshapeMarket() {
        graphs[Self.marketSource] = nil
        marketChange = .reshaped
    }

    /// The `market` graph's edge `from` → `to` keeps its rate but not its source: the prices through it change.
    private mutating func sameMarketEdge(from: String, to: String, asset: String) -> MarketChange {
        guard let fromCode = Self.canonical(from), let toCode = Self.canonical(to), fromCode != toCode, !hasIrregularCodes else {
            reshapeMarket()
            return .reshaped
        }
        return .rate(edge: MarketPair(base: fromCode, quote: toCode), asset: asset)
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
        self = RateBook(ranking: ranking)
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

    /// The preferred quote of each pair that is an edge of the `market` graph, sorted by symbol.
    public var preferredQuotes: [Quote] { edgeQuotes().map(\.chosen.quote) }

    /// The chosen quote of every pair that may be an edge of the `market` graph, sorted by pair.
    private func edgeQuotes() -> [(pair: MarketPair, chosen: ChosenQuote)] {
        pairsByBase.keys.flatMap { edgeQuotes(of: $0).map { (pair: $0.key, chosen: $0.value) } }.sorted { $0.pair < $1.pair }
    }

    /// The preferred quote of each pair whose base is `asset`, in ``ranking``'s order of their feeds (then by
    /// symbol): the order a price's 24 h change and time are taken from.
    public func referenceQuotes(of asset: String) -> [Quote] {
        let held = edgeQuotes(of: asset).sorted { $0.key < $1.key }.compactMap { pair, chosen -> (key: String, value: HeldQuote)? in
            guard let held = quotes[pair]?[chosen.feed] else { return nil }
            return (chosen.feed, held)
        }
        // The sort is stable: quotes that neither precedes keep their symbol order.
        return held.sorted { precedes($0, $1) }.map(\.value.quote)
    }

    /// The assets quoted against something, sorted.
    public var quotedAssets: [String] { pairsByBase.keys.sorted() }

    /// The preferred feed's quote of `pair` (``chosenQuote(for:)``).
    public func preferredQuote(for pair: MarketPair) -> Quote? { chosenQuote(for: pair)?.quote }

    /// The quote `pair` is priced from: of the feeds that may give it (``edgeQuotes(of:)``) in ``ranking``'s order,
    /// the first whose latest status is not `stale` or `gone`; when none is, the first of them all. Nil when no
    /// feed's quote of it may be an edge.
    public func chosenQuote(for pair: MarketPair) -> ChosenQuote? { edgeQuotes(of: pair.base)[pair] }

    /// The chosen quote of each of `asset`'s pairs that may be an edge of the `market` graph:
    /// - a fiat asset (an ISO code, or one the fiat source has rates for), or one that a listed feed whose status
    ///   is live quotes, or one no unlisted feed quotes: every pair, each from the listed feeds only;
    /// - otherwise (an unlisted feed quotes it and no listed live feed does): one pair only, each pair's quote chosen
    ///   among all feeds, the pair by a usable quote first, then a live feed, then a fiat quote currency, then by
    ///   symbol. With one edge the asset cannot be a shorter or lexicographically earlier step between two other
    ///   currencies.
    func edgeQuotes(of asset: String) -> [MarketPair: ChosenQuote] {
        let pairs = pairsByBase[asset] ?? []
        var listedLive = false, unlisted = false
        for pair in pairs {
            for feed in quotes[pair].map({ Array($0.keys) }) ?? [] {
                if ranking.place(of: feed) == nil { unlisted = true } else if Self.standing(feedStates[feed]) == nil { listedLive = true }
            }
        }
        if listedLive || !unlisted || isFiat(asset) {
            var chosen: [MarketPair: ChosenQuote] = [:]
            for pair in pairs {
                chosen[pair] = quotes[pair].flatMap { choose(among: $0.filter { ranking.place(of: $0.key) != nil }) }
            }
            return chosen
        }
        let best = pairs.compactMap { pair in quotes[pair].flatMap { choose(among: $0) }.map { (pair: pair, chosen: $0) } }.min { lhs, rhs in
            let left = (lhs.chosen.quote.isUsableRate ? 0 : 1, Self.standing(feedStates[lhs.chosen.feed]) == nil ? 0 : 1, isFiat(lhs.pair.quote) ? 0 : 1)
            let right = (rhs.chosen.quote.isUsableRate ? 0 : 1, Self.standing(feedStates[rhs.chosen.feed]) == nil ? 0 : 1, isFiat(rhs.pair.quote) ? 0 : 1)
            return left != right ? left < right : lhs.pair < rhs.pair
        }
        return best.map { [$0.pair: $0.chosen] } ?? [:]
    }

    /// Whether `code` is a fiat: an ISO 4217 code, or one the fiat source has rates for.
    private func isFiat(_ code: String) -> Bool {
        if Currency.iso(code) != nil { return true }
        let upper = code.uppercased()
        return fiatSource.flatMap { rates[$0] }?.values.contains { $0.from.uppercased() == upper || $0.to.uppercased() == upper } ?? false
    }

    /// Of quotes by feed, the one to price from (see ``chosenQuote(for:)``), nil for none.
    private func choose(among byFeed: [String: HeldQuote]) -> ChosenQuote? {
        guard !byFeed.isEmpty else { return nil }
        if byFeed.count == 1, let (feed, held) = byFeed.first {
            return ChosenQuote(quote: held.quote, feed: feed, source: Self.standing(feedStates[feed]).map { "\(feed) (\($0))" } ?? feed)
        }
        let ordered = byFeed.sorted { precedes($0, $1) }
        guard let chosen = ordered.firstIndex(where: { Self.standing(feedStates[$0.key]) == nil }) else {
            let (feed, held) = ordered[0]
            return ChosenQuote(quote: held.quote, feed: feed, source: Self.standing(feedStates[feed]).map { "\(feed) (\($0))" } ?? feed)
        }
        let (feed, held) = ordered[chosen]
        guard chosen > 0 else { return ChosenQuote(quote: held.quote, feed: feed, source: feed) }
        let passed = ordered[..<chosen].map { "\($0.key) \(Self.standing(feedStates[$0.key]) ?? "")" }
        return ChosenQuote(quote: held.quote, feed: feed, source: "\(feed) (\(passed.joined(separator: ", ")))")
    }

    /// Whether `lhs` comes before `rhs` in ``ranking``: a listed feed by its place, before any other; others the
    /// freshest first, then by name.
    private func precedes(_ lhs: (key: String, value: HeldQuote), _ rhs: (key: String, value: HeldQuote)) -> Bool {
        switch (ranking.place(of: lhs.key), ranking.place(of: rhs.key)) {
        case let (left?, right?): left < right
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): (rhs.value.freshness, lhs.key) < (lhs.value.freshness, rhs.key)
        }
    }

    /// Where the quote edge `from` → `to` of the `market` graph comes from: the chosen quote of the pair as
    /// given, else of the reverse pair; nil when no usable quote gives that edge.
    public func edgeSource(from: String, to: String) -> String? {
        if let forward = chosenQuote(for: MarketPair(base: from, quote: to)), forward.quote.isUsableRate { return forward.source }
        if let reverse = chosenQuote(for: MarketPair(base: to, quote: from)), reverse.quote.isUsableRate { return reverse.source }
        return nil
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

/// The quote a pair is priced from, and the source a price made from it names.
public struct ChosenQuote: Sendable, Equatable {
    /// The quote.
    public var quote: Quote
    /// The feed it came from (its topic's `quote.<feed>.…`).
    public var feed: String
    /// Its feed; when a higher-ranked feed was passed over, the feed and why, e.g. `bitso (kraken stale)`;
    /// when no feed of the pair is live, the feed and its state, e.g. `kraken (stale)`.
    public var source: String
}

/// What an update did to the `market` graph, and so which prices may have changed.
public enum MarketChange: Equatable, Sendable {
    /// Nothing the market's prices read from: another source's rate, a quote that is not preferred, a status
    /// that does not change which feed is live.
    case none
    /// The preferred quote of one of `asset`'s pairs changed, but not its rate: the asset's prices may take
    /// another quote's 24 h change or time.
    case quote(asset: String)
    /// The given rate of `edge` changed and the graph kept its shape, so every path stays; the prices whose
    /// path takes this edge (either way) changed, and those of `asset` when a quote of it moved.
    case rate(edge: MarketPair, asset: String?)
    /// `asset` got its first edge, hanging off a fiat currency (no edge ends at it): only its own prices are new.
    case added(asset: String)
    /// `asset` lost its one edge, which hung off a fiat currency: its prices are gone, no other moved.
    case removed(asset: String)
    /// The graph's shape, its fiat source, the quoted assets or a feed's liveness changed (or the book was reset):
    /// any price may have.
    case reshaped
}

extension Quote {
    /// Whether the quote can be an edge of the `market` graph: a positive price between
    /// two well-formed codes (CoinGecko has one-letter symbols such as "T", which cannot).
    var isUsableRate: Bool {
        last > .zero && (try? Currency(code: market.base)) != nil && (try? Currency(code: market.quote)) != nil
    }
}
