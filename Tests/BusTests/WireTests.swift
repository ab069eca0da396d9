import Bus
import Foundation
import Testing
import BusContract

@Suite("Topics, envelopes and the wire format")
struct WireTests {
    /// Topics follow kind.source.KEY and reject anything else.
    @Test func topicGrammar() throws {
        let topic = try Topic("quote.bitso.BTC-MXN")
        #expect(topic.kind == "quote")
        #expect(topic.source == "bitso")
        #expect(topic.key == "BTC-MXN")
        #expect(try Topic("status.bitso").key == nil)
        #expect(try Topic("status.bitso").source == "bitso")
        #expect(try Topic("heartbeat").kind == "heartbeat")
        #expect(try Topic("heartbeat").source == nil)
        #expect(try Topic("heartbeat").key == nil)
        #expect(try Topic("book.bitso.btc_mxn.asks").key == "btc_mxn.asks")
        #expect(try Topic("book.bitso.btc_mxn.asks").source == "bitso")
        #expect(try Topic(kind: "price", source: "BTC", key: "SEK").rawValue == "price.BTC.SEK")
        for bad in ["", ".", "quote.", ".quote", "quote..x", "quote.bit so", "quote.bitso.BTC/MXN", "ä.b"] {
            #expect(throws: BusError.invalidTopic(bad)) { try Topic(bad) }
        }
    }

    /// Dates go out as ISO 8601 UTC with milliseconds and come back equal.
    @Test func envelopeRoundTrip() throws {
        let time = try #require(Wire.parseDate("2026-11-23T10:15:30.123Z"))
        let envelope = Envelope(type: "quote", seq: 7, time: time, source: "bitso", data: Price(symbol: "BTC", price: "1298.99"))
        let json = String(decoding: try Wire.encode(envelope), as: UTF8.self)
        #expect(json.contains(#""time":"2026-11-23T10:15:30.123Z""#))
        #expect(json.contains(#""price":"1298.99""#))
        let message = try BusMessage(frames: [Data("quote.bitso.BTC".utf8), Data(json.utf8)])
        #expect(message.header.seq == 7)
        #expect(try message.decode(Price.self) == envelope)
    }

    /// Parsing a wire date and writing it again gives back the same text, to the millisecond.
    @Test(arguments: ["2026-11-23T05:06:26.455Z", "2026-11-23T05:06:26.000Z", "2026-11-23T23:59:59.999Z",
                      "1969-12-31T23:59:59.001Z", "2000-02-29T12:00:00.100Z", "2026-01-01T00:00:00.007Z"])
    func datesRoundTripExactly(text: String) throws {
        let date = try #require(Wire.parseDate(text))
        #expect(Wire.format(date) == text)
        let again = try #require(Wire.parseDate(Wire.format(date)))
        #expect(Wire.format(again) == text)
        #expect(Wire.parseDate("2026-11-23T05:06:26Z").map(Wire.format) == "2026-11-23T05:06:26.000Z")
    }

    /// Malformed stream messages are errors that say what is wrong.
    @Test func malformedMessages() {
        #expect(throws: BusError.malformedFrames(count: 1)) { try BusMessage(frames: [Data("quote.x".utf8)]) }
        #expect(throws: BusError.invalidTopic("no topic")) { try BusMessage(topic: "no topic", body: Data("{}".utf8)) }
        let garbage = #expect(throws: BusError.self) { try BusMessage(topic: "quote.x", body: Data("{not json".utf8)) }
        #expect(garbage?.description.contains("not valid JSON") == true)
        let missing = #expect(throws: BusError.self) {
            try BusMessage(topic: "quote.x", body: Data(#"{"type":"q","time":"2026-11-23T10:15:30.123Z","source":"s"}"#.utf8))
        }
        #expect(missing?.description.contains("missing \"seq\"") == true)
    }
}
