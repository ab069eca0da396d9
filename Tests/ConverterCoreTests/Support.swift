import Conversion
import Bus
import ConverterCore
import Feeds
import Foundation
import Market
import TickwireContract
import Money
import BusContract

/// An exact decimal from its text, so expected values read as they would be written by hand.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A `rate.<source>.<FROM>-<TO>` update as a client of rates-fetcher receives it.
func rateMessage(_ source: String, _ from: String, _ to: String, _ rate: String, seq: UInt64 = 1) throws -> StreamUpdate<FetcherUpdate> {
    StreamUpdate(
        topic: try Topic("rate.\(source).\(from)-\(to)"), seq: seq, time: Date(), source: source,
        value: .rate(ExchangeRate(from: from, to: to, rate: try dec(rate))))
}

/// A `quote.<feed>.<BASE>-<QUOTE>` update as a client of rates-fetcher receives it, published by the hub at `received`.
func quoteMessage(
    _ feed: String, _ base: String, _ quote: String, last: String,
    changePercent24h: String? = nil, time: Date? = nil, seq: UInt64 = 1, received: Date = Date()
) throws -> StreamUpdate<FetcherUpdate> {
    let market = MarketPair(base: base, quote: quote)
    let data = Quote(
        source: feed, market: market, last: try dec(last),
        changePercent24h: try changePercent24h.map(dec), time: time)
    return StreamUpdate(topic: try Topic("quote.\(feed).\(market.symbol)"), seq: seq, time: received, source: feed, value: .quote(data))
}

/// A `status.<feed>` update as a client of rates-fetcher receives it.
func statusMessage(_ feed: String, _ state: FeedStatus.State, seq: UInt64 = 1) throws -> StreamUpdate<FetcherUpdate> {
    StreamUpdate(topic: try Topic("status.\(feed)"), seq: seq, time: Date(), source: feed, value: .status(FeedStatus(feed: feed, state: state)))
}

/// A rate book holding exactly `messages`, applied in order, choosing feeds by `ranking`.
func book(_ messages: [StreamUpdate<FetcherUpdate>], ranking: FeedRanking = .standard) throws -> RateBook {
    var book = RateBook(ranking: ranking)
    for message in messages { try book.apply(message) }
    return book
}

/// The GNB sample rates (GNBClient.test) as `rate.gnb.*` messages.
func gnbSampleMessages() async throws -> [StreamUpdate<FetcherUpdate>] {
    try await GNBClient.test.rates().map { try rateMessage("gnb", $0.from, $0.to, $0.rate.description) }
}

/// `Conversions.convert` on a copy of `book`.
func convert(_ amount: String, _ from: String, _ to: String, source: String? = nil, in book: RateBook) throws -> ConvertResult {
    var copy = book
    return try Conversions.convert(ConvertRequest(amount: try dec(amount), from: from, to: to, source: source), in: &copy)
}

/// `Conversions.total` on a copy of `book`.
func total(_ items: [(String, String)], to: String, source: String? = nil, in book: RateBook) throws -> TotalResult {
    var copy = book
    let amounts = try items.map { CurrencyAmount(amount: try dec($0.0), currency: $0.1) }
    return try Conversions.total(TotalRequest(items: amounts, to: to, source: source), in: &copy)
}

/// `Conversions.rates` on a copy of `book`.
func rates(from base: String, source: String? = nil, in book: RateBook) throws -> RatesResult {
    var copy = book
    return try Conversions.rates(RatesRequest(base: base, source: source), in: &copy)
}
