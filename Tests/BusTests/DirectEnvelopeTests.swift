import Bus
import BusContract
import ContractWire
import Foundation
import Logging
import Market
import Money
import Testing
import WireJSON
import WireJSONTesting
import ZeroMQ

// The bus's paths on the direct wire codec (issue 31, 1B): what a publisher sends and what a BusMessage reads must
// be what the Codable path writes and today's tape read gives, byte for byte and error for error.

/// The wire's decoder as `Wire` configures it.
private let tape = WireJSONDecoder()

/// Money from its text.
private func money(_ text: String) -> ExactDecimal {
    guard let value = try? ExactDecimal(text) else { preconditionFailure("not money: \(text)") }
    return value
}

/// A quote with every member set, its market's codes as written (lower case).
private let fullQuote: Quote = {
    var quote = Quote(
        source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: money("1298765.43"), open: money("1290000.00"),
        high: money("1310000.00"), low: money("1280000.50"), volume: money("123.45678901"), quoteVolume: money("160000000.1"),
        vwap: money("1295000.12"), ask: money("1298772.55"), bid: money("1298758.93"), change24h: money("-1234.5"),
        changePercent24h: money("-0.095"), marketCap: money("25000000000000"), marketCapRank: 1, circulatingSupply: money("19800000"),
        totalSupply: money("19800000.5"), maxSupply: money("21000000"), allTimeHigh: money("2100000.00"),
        time: Wire.parseDate("2026-11-26T21:58:09.456Z"))
    quote.market.base = "btc"
    return quote
}()

/// `fullQuote` with each optional member kept or cleared at random, and now and then a string the fast path leaves to the tape.
private func randomQuote(_ random: inout SplitMix64) -> Quote {
    var quote = fullQuote
    let clear: [(inout Quote) -> Void] = [
        { $0.open = nil }, { $0.high = nil }, { $0.low = nil }, { $0.volume = nil }, { $0.quoteVolume = nil }, { $0.vwap = nil },
        { $0.ask = nil }, { $0.bid = nil }, { $0.change24h = nil }, { $0.changePercent24h = nil }, { $0.marketCap = nil },
        { $0.marketCapRank = nil }, { $0.circulatingSupply = nil }, { $0.totalSupply = nil }, { $0.maxSupply = nil },
        { $0.allTimeHigh = nil }, { $0.time = nil },
    ]
    for member in clear where random.next() & 1 == 0 { member(&quote) }
    if random.next() % 8 == 0 { quote.source = ["bit\"so", "café", "tab\t", ""][Int(random.next() % 4)] }
    quote.last = (try? ExactDecimal(mantissa: Int128(random.next() >> 20), scale: Int(random.next() % 9))) ?? quote.last
    return quote
}

/// A payload without a direct codec, read from the same envelopes: the generic decode's path.
private struct LooseQuote: Codable, Sendable, Equatable {
    struct Market: Codable, Sendable, Equatable {
        var base: String
        var quote: String
    }

    var source: String
    var market: Market
    var last: String
}

/// Today's read of a stream message (before the direct codec): the header from the tape's parse of the whole body, and
/// the payload from the same parse; errors as `BusMessage` reports them.
private func todaysMessage(topic: String, body: Data) -> Result<(EnvelopeHeader, WireDocument), BusError> {
    do {
        let (document, header) = try tape.parse(body) { try EnvelopeHeader(wire: $0) }
        return .success((header, document))
    } catch {
        return .failure(.malformedEnvelope(topic: topic, reason: describe(error)))
    }
}

/// Today's decode of a payload from a message's parse.
private func todaysDecode<P: Codable & Sendable>(_ type: P.Type, topic: String, header: EnvelopeHeader, document: WireDocument) -> Result<Envelope<P>, BusError> {
    do {
        var envelope = Envelope(
            type: header.type, seq: header.seq, time: header.time, source: header.source,
            data: try tape.decode(P.self, forKey: "data", from: document))
        envelope.version = header.version
        envelope.traceparent = header.traceparent
        envelope.tracestate = header.tracestate
        return .success(envelope)
    } catch {
        return .failure(.malformedEnvelope(topic: topic, reason: describe(error)))
    }
}

/// The generic decode (the path of a payload without a direct codec), for a payload that has one.
private func genericDecode<P: Codable & Sendable>(_ message: BusMessage, _ type: P.Type) throws -> Envelope<P> {
    try message.decode(P.self)
}

/// Whether two results are the same envelope (to the bit, and written as the same bytes) or the same error.
private func same<P: Codable & Equatable>(_ a: Result<Envelope<P>, any Error>, _ b: Result<Envelope<P>, BusError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)):
        return x == y && (try? WireJSONEncoder().encode(ViaCodable(x))) == (try? WireJSONEncoder().encode(ViaCodable(y)))
    case (.failure(let x), .failure(let y)):
        return "\(x)" == "\(y)"
    default:
        return false
    }
}

/// How a `BusMessage` of `body` differs from today's read of it: at init (the header, or the error), and in its
/// decodes as a quote (the direct path, and the generic one) and as a payload without a direct codec.
private func differences(topic: String, body: Data) -> [String] {
    let text = String(decoding: body, as: UTF8.self)
    let message = Result { try BusMessage(topic: topic, body: body) }
    switch (message, todaysMessage(topic: topic, body: body)) {
    case (.failure(let ours), .failure(let theirs)):
        return "\(ours)" == "\(theirs)" ? [] : ["refused otherwise (\(ours), today \(theirs)): \(text)"]
    case (.success, .failure(let error)):
        return ["accepted what today refuses (\(error)): \(text)"]
    case (.failure(let error), .success):
        return ["refused what today accepts (\(error)): \(text)"]
    case (.success(let message), .success(let (header, document))):
        var problems: [String] = []
        if message.header != header { problems.append("another header: \(text)") }
        if message.body != body { problems.append("another body: \(text)") }
        let quote = todaysDecode(Quote.self, topic: topic, header: header, document: document)
        if !same(Result { try message.decode(Quote.self) }, quote) { problems.append("the direct decode differs: \(text)") }
        if !same(Result { try genericDecode(message, Quote.self) }, quote) { problems.append("the generic decode differs: \(text)") }
        let loose = todaysDecode(LooseQuote.self, topic: topic, header: header, document: document)
        if !same(Result { try message.decode(LooseQuote.self) }, loose) { problems.append("a payload without a direct codec differs: \(text)") }
        return problems
    }
}

@Suite("The bus on the direct wire codec")
struct DirectEnvelopeTests {
    /// A publisher and a raw SUB socket connected to it, with the first message through.
    func connected(_ body: (Publisher, Socket) throws -> Void) async throws {
        let context = try ZMQContext()
        let endpoint = "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-direct-\(UUID().uuidString.prefix(8))"
        let publisher = try Publisher(context: context, service: "direct", endpoints: [endpoint], logger: Logger(label: "test"))
        let sub = try Socket(context: context, type: .sub)
        defer { sub.close() }
        try sub.set(.receiveTimeout, 200)
        try sub.subscribe("")
        try sub.connect(endpoint)
        let joined = try Topic("quote.join.JOIN-USD")
        var ready = false
        while !ready {
            try publisher.publish(fullQuote, on: joined)
            ready = try sub.receive(dontWait: false) != nil
        }
        while try sub.receive(dontWait: false) != nil {}
        try body(publisher, sub)
        await publisher.close()
    }

    /// What the publisher sends of a direct payload is what the `Codable` path writes for the envelope it carries,
    /// byte for byte, as is what it sends through the generic publish and what it retains for snapshots.
    @Test func publisherSendsTheBytesOfTheCodablePath() async throws {
        try await connected { publisher, sub in
            let topic = try Topic("quote.bitso.BTC-MXN")
            /// Receives the next message and checks it: the envelope of `data`, numbered `seq`, in the Codable path's bytes.
            func received<P: Codable & Sendable & Equatable>(_ data: P, seq: UInt64?, on topic: Topic, type: String, source: String) throws -> Data? {
                let frames = try #require(try sub.receive(dontWait: false), "nothing received")
                #expect(frames.count == 2)
                #expect(frames.first == Data(topic.rawValue.utf8))
                let body = frames[1]
                let envelope = try tape.decode(Envelope<P>.self, from: body)
                #expect(body == (try WireJSONEncoder().encode(ViaCodable(envelope))), "\(String(decoding: body, as: UTF8.self))")
                #expect(envelope.data == data)
                #expect(try WireJSONEncoder().encode(ViaCodable(envelope.data)) == WireJSONEncoder().encode(ViaCodable(data)))
                #expect(envelope.seq == seq && envelope.version == 1 && envelope.type == type && envelope.source == source)
                #expect(envelope.traceparent == nil && envelope.tracestate == nil)
                #expect(abs(envelope.time.timeIntervalSinceNow) < 60)
                return body
            }
            /// The generic publish, which a payload without a direct codec takes.
            func publishGenerically<P: Codable & Sendable & Equatable>(_ data: P, on topic: Topic) throws -> UInt64? {
                try publisher.publish(data, on: topic)
            }
            var random = SplitMix64(state: 31)
            var last = Data()
            for round in 0..<200 {
                let quote = round == 0 ? fullQuote : randomQuote(&random)
                let seq = round % 5 == 4 ? try publishGenerically(quote, on: topic) : try publisher.publish(quote, on: topic)
                last = try #require(try received(quote, seq: seq, on: topic, type: "quote", source: "bitso"))
            }
            let retained = publisher.snapshot(prefix: "quote.bitso.").entries.first { $0.topic == topic }
            #expect(retained?.body == String(decoding: last, as: UTF8.self))
            #expect(retained?.seq == 200)

            // Another type and source, a heartbeat, and an unchanged payload (by value: 12.50 is 12.5) that is not sent.
            let seq = try publisher.publish(fullQuote, on: topic, type: "ticker", source: "feed")
            _ = try received(fullQuote, seq: seq, on: topic, type: "ticker", source: "feed")
            let heartbeat = Heartbeat(service: "direct", instance: "run-\u{1}", topics: 3, dropped: -1, intervalMilliseconds: 1000)
            let beat = try Topic("heartbeat.direct")
            _ = try received(heartbeat, seq: try publisher.publish(heartbeat, on: beat), on: beat, type: "heartbeat", source: "direct")
            var changed = fullQuote
            changed.last = money("12.50")
            let first = try publisher.publish(changed, on: topic, onlyIfChanged: true)
            _ = try received(changed, seq: first, on: topic, type: "quote", source: "bitso")
            changed.last = money("12.5")
            #expect(try publisher.publish(changed, on: topic, onlyIfChanged: true) == nil)
            #expect(try sub.receive(dontWait: false) == nil)
        }
    }

    /// Messages held by `publishingTogether` (end to end in one buffer that grows as they come) go out whole, in
    /// order, each in the Codable path's bytes, the direct and the generic ones mixed.
    @Test func heldMessagesGoOutWhole() async throws {
        try await connected { publisher, sub in
            let topics = [try Topic("quote.bitso.AAA-MXN"), try Topic("quote.bitso.BBB-MXN")]
            func publishGenerically<P: Codable & Sendable & Equatable>(_ data: P, on topic: Topic) throws -> UInt64? {
                try publisher.publish(data, on: topic)
            }
            var random = SplitMix64(state: 77)
            var quotes: [Quote] = []
            try publisher.publishingTogether {
                for index in 0..<300 {
                    var quote = randomQuote(&random)
                    if index % 50 == 7 { quote.source = String(repeating: "long", count: 2000) }
                    quotes.append(quote)
                    _ = index % 3 == 2 ? try publishGenerically(quote, on: topics[index % 2]) : try publisher.publish(quote, on: topics[index % 2])
                }
                #expect(try sub.receive(dontWait: false) == nil, "a message went out before the end")
            }
            for (index, quote) in quotes.enumerated() {
                let frames = try #require(try sub.receive(dontWait: false), "message \(index) missing")
                #expect(frames.first == Data(topics[index % 2].rawValue.utf8))
                let envelope = try tape.decode(Envelope<Quote>.self, from: frames[1])
                #expect(frames[1] == (try WireJSONEncoder().encode(ViaCodable(envelope))))
                #expect(envelope.data == quote && envelope.seq == UInt64(index / 2 + 1))
            }
        }
    }

    /// A canonical envelope, one in another form (read by the tape, as before), and invalid ones (still refused at
    /// init as `malformedEnvelope`, with today's reason): a BusMessage reads each as today's code did.
    @Test func busMessagesReadAsToday() throws {
        let topic = "quote.bitso.BTC-MXN"
        var envelope = Envelope(type: "quote", seq: 123_456, time: try #require(Wire.parseDate("2026-11-26T21:58:10.123Z")), source: "bitso", data: fullQuote)
        envelope.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        envelope.tracestate = "rojo=00f067aa0ba902b7"
        let canonical = String(decoding: try WireJSONEncoder().encode(ViaCodable(envelope)), as: UTF8.self)
        #expect(canonical.hasPrefix(#"{"version":1,"type":"quote","seq":123456,"time":"2026-11-26T21:58:10.123Z","source":"bitso","traceparent":"#))
        let forms: [String] = [
            canonical,
            canonical.replacingOccurrences(of: #"{"version":1,"type":"quote","#, with: #"{"type":"quote","version":1,"#),
            canonical.replacingOccurrences(of: #"{"version":1,"#, with: "{"),
            canonical.replacingOccurrences(of: ":", with: ": ").replacingOccurrences(of: #",""#, with: #", ""#),
            canonical.replacingOccurrences(of: #""source":"bitso","market""#, with: #""source":"bit\"so","market""#),
            canonical.replacingOccurrences(of: #""source":"bitso","market""#, with: #""source":"café","market""#),
            canonical.replacingOccurrences(of: #""last":"1298765.43","open""#, with: #""open":"1290000.00","last":"1298765.43","open""#),
            canonical.replacingOccurrences(of: #""last":"1298765.43""#, with: #""last":1298765.43"#),
            canonical.replacingOccurrences(of: #""last":"1298765.43""#, with: #""last":"1e400""#),
            canonical.replacingOccurrences(of: #""marketCapRank":1"#, with: #""marketCapRank":1.5"#),
            canonical.replacingOccurrences(of: #""traceparent":"00-"#, with: #""traceparent":5,"x":"00-"#),
            canonical.replacingOccurrences(of: #""time":"2026-11-26T21:58:10.123Z""#, with: #""time":"2026-11-26T21:58:10Z""#),
            canonical.replacingOccurrences(of: #""version":1"#, with: #""version":2"#),
            canonical.replacingOccurrences(of: #""seq":123456"#, with: #""seq":0123456"#),
            canonical.replacingOccurrences(of: #""data":{"#, with: #""data":{"extra":[1,{"a":null}],"#),
            canonical + " ", canonical + "x", String(canonical.dropLast()), "{not json", "", "null", #"{"version":1}"#,
            #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"s","data":null}"#,
            #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"s","data":{}}"#,
            #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"s","data":[1,2.5,true,"x"]}"#,
        ]
        for form in forms {
            let problems = differences(topic: topic, body: Data(form.utf8))
            #expect(problems.isEmpty, "\(problems)")
        }
        // What the direct read settles at init: the canonical text without a parse, invalid text refused as before.
        #expect(throws: BusError.self) { try BusMessage(topic: topic, body: Data(String(canonical.dropLast()).utf8)) }
        let message = try BusMessage(topic: topic, body: Data(canonical.utf8))
        #expect(message.header.seq == 123_456 && message.header.traceparent == envelope.traceparent && message.header.version == 1)
        #expect(try message.decode(Quote.self) == envelope)
        #expect(try message.decode(Quote.self).data.market.base == "btc")
    }

    /// Random edits of canonical envelopes: a BusMessage accepts, refuses and decodes each as today's code did.
    @Test func busMessagesAgreeWithTodayOnRandomEdits() async throws {
        var random = SplitMix64(state: 1031)
        var problems: [String] = []
        var bodies: [[UInt8]] = []
        for _ in 0..<8 {
            let envelope = Envelope(
                type: "quote", seq: random.next() >> (random.next() % 64), time: Date(timeIntervalSince1970: 1_795_000_000 + Double(random.next() % 1_000_000) / 1000),
                source: "bitso", data: randomQuote(&random))
            bodies.append(Array(try WireJSONEncoder().encode(ViaCodable(envelope))))
        }
        for round in 0..<2000 {
            if round % 50 == 0 { await Task.yield() }
            var bytes = bodies[round % bodies.count]
            for _ in 0...(random.next() % 3) { bytes = mutate(bytes, using: &random) }
            problems += differences(topic: "quote.bitso.BTC-MXN", body: Data(bytes))
        }
        #expect(problems.isEmpty, "\(problems.count) differences, the first: \(problems.prefix(3).joined(separator: "\n"))")
    }
}
