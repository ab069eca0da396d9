import Bus
import BusContract
import Foundation
import Market
import Money

/// Why the feed hub refused a plugin's message: the `reason` label of `tickwire_ingest_refused_total` and the key
/// of ``FeedStatus/refused``.
public enum IngestRefusal: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Not two frames, not JSON, not an envelope, or `data` not of the topic's type.
    case malformed
    /// A kind the hub does not take, a topic outside the grammar, a feed name outside the grammar, or a topic
    /// that does not match what the message says (its `source`, its data's market, symbol or feed).
    case topic
    /// A name the hub's own feeds or the stack's services publish under.
    case reserved
    /// A name another plugin (another instance, or another key) holds.
    case nameTaken = "name-taken"
    /// A `seq` not above the topic's last one.
    case seq
    /// A value out of bounds: a price not above zero, a number of more than 38 digits, a bad currency code, ...
    case value
    /// More messages than the feed's share (`--ingest-rate`).
    case rateLimit = "rate-limit"
    /// An envelope version this hub cannot read.
    case version

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A message the hub refused: why, the feed it names (nil when it names none usable), and what was wrong, for the log.
public struct IngestRefused: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why.
    public var reason: IngestRefusal
    /// The feed name the topic gives, if it is a well-formed one.
    public var feed: String?
    /// What was wrong, for people.
    public var detail: String

    /// A refusal for `reason`.
    public init(_ reason: IngestRefusal, feed: String?, _ detail: String) {
        self.reason = reason
        self.feed = feed
        self.detail = IngestValidation.clipped(detail)
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}

/// The kinds of topic a plugin may publish into the hub.
public enum IngestKind: String, Sendable, Hashable, CaseIterable {
    /// `quote.<feed>.<BASE>-<QUOTE>`: a ``Quote``.
    case quote
    /// `rate.<feed>.<FROM>-<TO>`: an `ExchangeRate`.
    case rate
    /// `limits.<feed>.<BOOK>`: a ``BookInfo``.
    case limits
    /// `book.<feed>.<BASE>-<QUOTE>`: a ``BookDepth``.
    case book
    /// `trade.<feed>.<BASE>-<QUOTE>`: a ``MarketTrade``.
    case trade
    /// `coin.<feed>.<SYMBOL>`: a ``CoinInfo``.
    case coin
    /// `status.<feed>`: the plugin's own ``FeedStatus``.
    case status
    /// `heartbeat.<feed>`: a `Heartbeat` (not republished).
    case heartbeat

    /// Whether its topics have a key after the feed's name.
    var hasKey: Bool { self != .status && self != .heartbeat }
}

/// A plugin's topic, read: its kind, its feed's name and its key.
public struct IngestTopic: Sendable, Hashable {
    /// The topic as it came.
    public let topic: Topic
    /// What it carries.
    public let kind: IngestKind
    /// The feed's name: its second component.
    public let feed: String
    /// The rest (`BTC-USD`), nil for `status` and `heartbeat`.
    public let key: String?
}

/// A message's decoded payload. Indirect: a quote is large, and a message passes from check to republication by copy.
public indirect enum IngestPayload: Sendable, Equatable {
    case quote(Quote)
    case rate(ExchangeRate)
    case limits(BookInfo)
    case book(BookDepth)
    case trade(MarketTrade)
    case coin(CoinInfo)
    case status(FeedStatus)
    case heartbeat(Heartbeat)
}

/// A message that passed every check of its own: its topic, grammar, envelope, type and values. What is left is
/// the hub's to check against what came before (the feed's owner, the topic's `seq`).
public struct IngestMessage: Sendable, Equatable {
    /// Its topic.
    public var topic: IngestTopic
    /// The plugin's sequence number for the topic.
    public var seq: UInt64
    /// What it carries.
    public var payload: IngestPayload
    /// The trace context it was published in, nil when it carries none.
    public var trace: TraceContext?
}

/// The checks of one plugin message that need nothing but the message: pure functions, in the order the hub
/// runs them (the topic first, so a refused message is not parsed further than needed).
public enum IngestValidation {
    /// The longest feed name.
    public static let maxFeedNameLength = 32
    /// The longest topic frame, in bytes: refused `topic` unread (the longest topic the grammar allows is under 80).
    public static let maxTopicLength = 128
    /// The longest string member (`name`, `id`, `message`, ...) a plugin's message may have.
    public static let maxTextLength = 256
    /// The most levels a side of a published book may have.
    public static let maxBookLevels = 1_000
    /// The longest `image` URL.
    public static let maxImageLength = 2048
    /// The heartbeat intervals a plugin may announce, in milliseconds: 3 of them fit in the 30 s after which it is gone.
    public static let heartbeatIntervals = 10...10_000

    /// Whether `name` is a feed name: 1 to 32 characters, a lower-case letter first, then lower-case letters,
    /// digits, `-` and `_`.
    public static func isFeedName(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maxFeedNameLength, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return false
        }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    /// Reads the topic frame: `kind.feed[.key]` with a kind of ``IngestKind``, a feed name, and a key where the
    /// kind has one (a market `BASE-QUOTE` of currency codes for quotes, rates, books and trades, a currency code for
    /// coins, a book `base_quote` of two codes in either case joined by `_` or `-` for limits). A frame of more than
    /// ``maxTopicLength`` bytes is refused before it is read.
    public static func topic(_ frame: Data) throws(IngestRefused) -> IngestTopic {
        guard frame.count <= maxTopicLength else {
            throw IngestRefused(.topic, feed: nil, "a topic of \(frame.count) bytes: at most \(maxTopicLength)")
        }
        let text = String(decoding: frame, as: UTF8.self)
        guard let topic = try? Topic(text) else {
            throw IngestRefused(.topic, feed: nil, "\(quoted(text)) is not a topic (kind.source.KEY of letters, digits, - and _)")
        }
        let source = topic.source.map(String.init)
        let feed = source.flatMap { isFeedName($0) ? $0 : nil }
        guard let kind = IngestKind(rawValue: String(topic.kind)) else {
            throw IngestRefused(.topic, feed: feed, "\(quoted(text)): a plugin publishes \(IngestKind.allCases.map(\.rawValue).joined(separator: ", ")), not \(topic.kind)")
        }
        guard let source else { throw IngestRefused(.topic, feed: nil, "\(quoted(text)) names no feed (\(kind.rawValue).<feed>...)") }
        guard let feed else {
            throw IngestRefused(.topic, feed: nil, "\(quoted(source)) is not a feed name: 1 to \(maxFeedNameLength) characters, a lower-case letter, then lower-case letters, digits, - and _")
        }
        let key = topic.key.map(String.init)
        switch (kind, key) {
        case (.status, nil), (.heartbeat, nil):
            break
        case (.status, _?), (.heartbeat, _?):
            throw IngestRefused(.topic, feed: feed, "\(quoted(text)): \(kind.rawValue) topics are \(kind.rawValue).<feed>, with nothing after")
        case (_, nil):
            throw IngestRefused(.topic, feed: feed, "\(quoted(text)) has no key (\(kind.rawValue).\(feed).<KEY>)")
        case (.quote, let key?), (.rate, let key?), (.book, let key?), (.trade, let key?):
            let dash = key.utf8.firstIndex(of: UInt8(ascii: "-")) ?? key.utf8.endIndex
            guard dash != key.utf8.endIndex, isCode(key.utf8[..<dash]), isCode(key.utf8[key.utf8.index(after: dash)...]) else {
                throw IngestRefused(.topic, feed: feed, "\(quoted(text)): the key must be a market BASE-QUOTE of upper-case currency codes")
            }
        case (.coin, let key?):
            guard isCode(key.utf8) else { throw IngestRefused(.topic, feed: feed, "\(quoted(text)): the key must be an upper-case currency code") }
        case (.limits, let key?):
            guard isBook(key.utf8) else {
                throw IngestRefused(.topic, feed: feed, "\(quoted(text)): the key must be a book base_quote of two currency codes (letters or digits) joined by _ or -")
            }
        }
        return IngestTopic(topic: topic, kind: kind, feed: feed, key: key)
    }

    /// Reads the envelope `body` of a message on `topic`, its payload as the topic's type, and checks its values
    /// and that they match the topic.
    public static func message(on topic: IngestTopic, body: Data) throws(IngestRefused) -> IngestMessage {
        let feed = topic.feed
        let header: (type: String, seq: UInt64, source: String, trace: TraceContext?)
        let payload: IngestPayload
        do {
            switch topic.kind {
            case .quote:
                let envelope = try Wire.decode(Envelope<Quote>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .quote(envelope.data))
            case .rate:
                let envelope = try Wire.decode(Envelope<ExchangeRate>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .rate(envelope.data))
            case .limits:
                let envelope = try Wire.decode(Envelope<BookInfo>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .limits(envelope.data))
            case .book:
                let envelope = try Wire.decode(Envelope<BookDepth>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .book(envelope.data))
            case .trade:
                let envelope = try Wire.decode(Envelope<MarketTrade>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .trade(envelope.data))
            case .coin:
                let envelope = try Wire.decode(Envelope<CoinInfo>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .coin(envelope.data))
            case .status:
                let envelope = try Wire.decode(Envelope<FeedStatus>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .status(envelope.data))
            case .heartbeat:
                let envelope = try Wire.decode(Envelope<Heartbeat>.self, from: body)
                (header, payload) = ((envelope.type, envelope.seq, envelope.source, envelope.trace), .heartbeat(envelope.data))
            }
        } catch {
            throw refusal(decoding: error, feed: feed)
        }
        guard header.type == topic.kind.rawValue else {
            throw IngestRefused(.malformed, feed: feed, "envelope type \(quoted(header.type)) on a \(topic.kind.rawValue) topic")
        }
        guard header.source == feed else {
            throw IngestRefused(.topic, feed: feed, "envelope source \(quoted(header.source)) on \(topic.topic): the topic's feed must be the source")
        }
        guard header.seq > 0 else { throw IngestRefused(.seq, feed: feed, "seq 0 on \(topic.topic): sequence numbers start at 1") }
        try check(payload, on: topic)
        return IngestMessage(topic: topic, seq: header.seq, payload: payload, trace: header.trace)
    }

    /// Why decoding an envelope failed, as a refusal: an unknown `version` is `version`; a member whose value could
    /// not be read (a number of more than 38 digits, money as a JSON number, a date that is none) is `value`;
    /// anything else (not JSON, a member missing or of another type) is `malformed`.
    static func refusal(decoding error: any Error, feed: String) -> IngestRefused {
        if case .dataCorrupted(let context) = error as? DecodingError {
            let path = context.codingPath.map(\.stringValue)
            if path == ["version"] { return IngestRefused(.version, feed: feed, context.debugDescription) }
            if path.count >= 2, path[0] == "data" {
                return IngestRefused(.value, feed: feed, "\(path.joined(separator: ".")): \(context.debugDescription)")
            }
        }
        return IngestRefused(.malformed, feed: feed, describe(error))
    }

    /// Checks the payload's values, and that it is what its topic names.
    static func check(_ payload: IngestPayload, on topic: IngestTopic) throws(IngestRefused) {
        let feed = topic.feed
        func value(_ detail: String) -> IngestRefused { IngestRefused(.value, feed: feed, "\(topic.topic): \(detail)") }
        func mismatch(_ detail: String) -> IngestRefused { IngestRefused(.topic, feed: feed, "\(topic.topic): \(detail)") }
        switch payload {
        case .quote(let quote):
            guard quote.source == feed else { throw mismatch("the quote's source \(quoted(quote.source)) is not the feed") }
            try checkCodes(quote.market.base, quote.market.quote, value)
            guard let key = topic.key, isMarket(key, of: quote.market) else { throw mismatch("the quote is of \(quote.market.symbol)") }
            try checkQuote(quote, value)
        case .rate(let rate):
            try checkCodes(rate.from, rate.to, value)
            guard "\(rate.from)-\(rate.to)" == topic.key else {
                throw mismatch("the rate is \(rate.from)-\(rate.to)")
            }
            try positive(rate.rate, "rate", value)
        case .limits(let book):
            guard book.book == topic.key else { throw mismatch("the book is \(quoted(book.book))") }
            try checkCodes(book.market.base, book.market.quote, value)
            try checkLimits(book, value)
        case .book(let depth):
            guard depth.source == feed else { throw mismatch("the book's source \(quoted(depth.source)) is not the feed") }
            try checkCodes(depth.market.base, depth.market.quote, value)
            guard let key = topic.key, isMarket(key, of: depth.market) else { throw mismatch("the book is of \(depth.market.symbol)") }
            try checkDepth(depth, value)
        case .trade(let trade):
            guard trade.source == feed else { throw mismatch("the trade's source \(quoted(trade.source)) is not the feed") }
            try checkCodes(trade.market.base, trade.market.quote, value)
            guard let key = topic.key, isMarket(key, of: trade.market) else { throw mismatch("the trade is of \(trade.market.symbol)") }
            guard !trade.id.isEmpty, trade.id.count <= maxTextLength else { throw value("id must be 1 to \(maxTextLength) characters") }
            try positive(trade.price, "price", value)
            try positive(trade.size, "size", value)
        case .coin(let coin):
            guard coin.symbol == topic.key else { throw mismatch("the coin is \(quoted(coin.symbol))") }
            guard !coin.name.isEmpty, coin.name.count <= maxTextLength else { throw value("name must be 1 to \(maxTextLength) characters") }
            guard coin.id.count <= maxTextLength else { throw value("id must be at most \(maxTextLength) characters") }
            guard coin.image.isEmpty || (coin.image.count <= maxImageLength && (coin.image.hasPrefix("https://") || coin.image.hasPrefix("http://"))) else {
                throw value("image must be \"\" or an http(s) URL of at most \(maxImageLength) characters")
            }
        case .status(let status):
            guard status.feed == feed else { throw mismatch("the status is of \(quoted(status.feed))") }
            guard (status.message?.count ?? 0) <= maxTextLength * 4 else { throw value("message must be at most \(maxTextLength * 4) characters") }
        case .heartbeat(let heartbeat):
            guard heartbeat.service == feed else { throw mismatch("the heartbeat's service \(quoted(heartbeat.service)) is not the feed") }
            guard !heartbeat.instance.isEmpty, heartbeat.instance.count <= maxTextLength else {
                throw value("instance must be 1 to \(maxTextLength) characters")
            }
            guard heartbeatIntervals.contains(heartbeat.intervalMilliseconds) else {
                throw value("intervalMilliseconds must be \(heartbeatIntervals.lowerBound) to \(heartbeatIntervals.upperBound), got \(heartbeat.intervalMilliseconds)")
            }
        }
    }

    /// Whether `key` (a topic's `BASE-QUOTE`) names `market`, compared without making its symbol.
    static func isMarket(_ key: String, of market: MarketPair) -> Bool {
        guard let dash = key.utf8.firstIndex(of: UInt8(ascii: "-")) else { return false }
        return key.utf8[..<dash].elementsEqual(market.base.utf8) && key.utf8[key.utf8.index(after: dash)...].elementsEqual(market.quote.utf8)
    }

    /// Prices above zero, amounts not below zero, `high` not below `low`, a rank from 1. Each member checked in
    /// place (no list of them per message): this runs for every quote a plugin sends.
    private static func checkQuote(_ quote: Quote, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        try positive(quote.last, "last", value)
        try positive(quote.open, "open", value)
        try positive(quote.high, "high", value)
        try positive(quote.low, "low", value)
        try positive(quote.vwap, "vwap", value)
        try positive(quote.ask, "ask", value)
        try positive(quote.bid, "bid", value)
        try positive(quote.allTimeHigh, "allTimeHigh", value)
        try notNegative(quote.volume, "volume", value)
        try notNegative(quote.quoteVolume, "quoteVolume", value)
        try notNegative(quote.marketCap, "marketCap", value)
        try notNegative(quote.circulatingSupply, "circulatingSupply", value)
        try notNegative(quote.totalSupply, "totalSupply", value)
        try notNegative(quote.maxSupply, "maxSupply", value)
        if let high = quote.high, let low = quote.low, high < low { throw value("high \(high) is below low \(low)") }
        if let rank = quote.marketCapRank, rank < 1 { throw value("marketCapRank \(rank) is below 1") }
    }

    /// At most ``maxBookLevels`` levels a side, each of a price and a size above zero; bids strictly descending and
    /// asks strictly ascending (best first, no price twice); not crossed (the best bid below the best ask); a
    /// sequence not below zero.
    private static func checkDepth(_ depth: BookDepth, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        guard depth.sequence >= 0 else { throw value("sequence \(depth.sequence) is negative") }
        for (side, levels) in [("bids", depth.bids), ("asks", depth.asks)] {
            guard levels.count <= maxBookLevels else { throw value("\(levels.count) \(side): at most \(maxBookLevels) levels a side") }
            var previous: ExactDecimal?
            for (index, level) in levels.enumerated() {
                guard level.price.mantissa > 0 else { throw value("\(side)[\(index)].price \(level.price) is not above zero") }
                guard level.size.mantissa > 0 else { throw value("\(side)[\(index)].size \(level.size) is not above zero") }
                if let previous, side == "bids" ? level.price >= previous : level.price <= previous {
                    throw value("\(side)[\(index)].price \(level.price) after \(previous): \(side) must be strictly \(side == "bids" ? "descending" : "ascending"), best first")
                }
                previous = level.price
            }
        }
        if let bid = depth.bids.first?.price, let ask = depth.asks.first?.price, bid >= ask {
            throw value("crossed: the best bid \(bid) is not below the best ask \(ask)")
        }
    }

    /// Limits not below zero, each minimum not above its maximum.
    private static func checkLimits(_ book: BookInfo, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        let limits: [(String, ExactDecimal, ExactDecimal)] = [
            ("Amount", book.minimumAmount, book.maximumAmount), ("Price", book.minimumPrice, book.maximumPrice),
            ("Value", book.minimumValue, book.maximumValue),
        ]
        for (name, minimum, maximum) in limits {
            guard !minimum.isNegative, !maximum.isNegative else { throw value("minimum\(name) and maximum\(name) must not be negative") }
            guard minimum <= maximum else { throw value("minimum\(name) \(minimum) is above maximum\(name) \(maximum)") }
        }
    }

    /// A price above zero (its sign is its mantissa's); none is fine.
    private static func positive(_ price: ExactDecimal?, _ name: StaticString, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        guard let price, price.mantissa <= 0 else { return }
        throw value("\(name) \(price) is not above zero")
    }

    /// An amount not below zero; none is fine.
    private static func notNegative(_ amount: ExactDecimal?, _ name: StaticString, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        guard let amount, amount.isNegative else { return }
        throw value("\(name) \(amount) is negative")
    }

    /// Both codes of a market are currency codes as written, and not the same.
    private static func checkCodes(_ base: String, _ quote: String, _ value: (String) -> IngestRefused) throws(IngestRefused) {
        for code in [base, quote] where !isCode(code.utf8) {
            throw value("\(quoted(code)) is not a currency code (2 to 12 upper-case ASCII letters or digits)")
        }
        guard base != quote else { throw value("a market of \(base) in itself") }
    }

    /// Whether `code` is a currency code as written: 2 to 12 upper-case ASCII letters or digits (what `Currency`
    /// takes, upper-cased), read from its bytes without making a string.
    static func isCode(_ code: some Collection<UInt8>) -> Bool {
        (2...12).contains(code.count) && code.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// Whether `key` is a book's name: two codes of 2 to 12 ASCII letters or digits, either case, joined by `_` or
    /// `-` (`btc_mxn`), so a book's key is as bounded as a market's.
    static func isBook(_ key: some Collection<UInt8>) -> Bool {
        guard let join = key.firstIndex(where: { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else { return false }
        func isPart(_ part: some Collection<UInt8>) -> Bool {
            (2...12).contains(part.count) && part.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
        return isPart(key[..<join]) && isPart(key[key.index(after: join)...])
    }

    /// `text` in quotes, cut to 80 characters.
    static func quoted(_ text: some StringProtocol) -> String {
        "\"\(text.count > 80 ? "\(text.prefix(80))…" : String(text))\""
    }

    /// `text` cut to 300 characters (a 10,000-digit number in a log line helps nobody).
    static func clipped(_ text: String) -> String {
        text.count > 300 ? "\(text.prefix(300))… (\(text.count) characters)" : text
    }
}
