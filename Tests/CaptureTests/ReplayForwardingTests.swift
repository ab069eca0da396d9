import Bus
import BusContract
import Capture
import Foundation
import Market
import Money
@testable import ReplayCore
import TickwireContract
import TickwireFeeds
import Testing

/// The replay's fast paths: the reader's own record lines, and envelopes forwarded with their `data` bytes as captured.
@Suite struct ReplayForwardingTests {
    /// Receive times of 19 digits (nanoseconds since 1970) and the extremes of Int64 read back exactly.
    @Test func nineteenDigitTimesReadBack() throws {
        try withDirectory { directory in
            let times: [Int64] = [1_795_719_812_389_589_587, .max, .min, -1, 0]
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for time in times {
                try writer.append(CaptureRecord(received: time, topic: "quote.x.A-B", envelope: Data(#"{"a":"\"b\"\n"}"#.utf8)))
            }
            try writer.close()
            let records = try readAll(directory)
            #expect(records.map(\.received) == times)
            #expect(records.allSatisfy { $0.envelope == Data(#"{"a":"\"b\"\n"}"#.utf8) })
        }
    }

    /// A quote record's publication carries the captured `data` bytes unchanged, in an envelope of the replay's own
    /// seq, time and source that decodes to the captured quote.
    @Test func forwardsTheCapturedDataBytes() throws {
        let data = #"{"source":"bitso","market":{"base":"BTC","quote":"MXN"},"last":"1253663.740","bid":"1251494.77","time":"2026-11-26T19:03:32.345Z"}"#
        let captured = #"{"version":1,"type":"quote","seq":17,"time":"2026-11-26T19:03:32.375Z","source":"bitso","traceparent":"00-42a7657eee48c9ef31baa9cc8f5d07c9-131b83b511e0111f-01","data":"#
            + data + "}"
        let record = CaptureRecord(received: 1, topic: "quote.bitso.BTC-MXN", envelope: Data(captured.utf8))
        let publication = try #require(try ReplayMessage.publication(of: record, file: "f", number: 1, offset: 0))
        let envelope = try publication.envelope(seq: 3, time: Date(timeIntervalSince1970: 1_795_000_000), source: "bitso")
        #expect(String(decoding: envelope, as: UTF8.self)
            == #"{"version":1,"type":"quote","seq":3,"time":"2026-11-18T11:06:40.000Z","source":"bitso","data":"# + data + "}")
        let decoded = try Wire.decode(Envelope<Quote>.self, from: envelope)
        #expect(decoded.data.last == (try ExactDecimal("1253663.740")))
        #expect(decoded.data == (try Wire.decode(Envelope<Quote>.self, from: record.envelope).data))
    }

    /// With `retime` the payload's time is moved, so it is encoded again.
    @Test func retimedQuoteIsEncodedAgain() throws {
        let envelope = try quoteEnvelope(feed: "bitso", base: "BTC", last: "100", seq: 1)
        let record = CaptureRecord(received: 1, topic: "quote.bitso.BTC-USD", envelope: envelope)
        let publication = try #require(try ReplayMessage.publication(of: record, file: "f", number: 1, offset: 0, shift: 60))
        let sent = try Wire.decode(Envelope<Quote>.self, from: publication.envelope(seq: 1, time: Date(), source: "bitso"))
        #expect(sent.data.time == Date(timeIntervalSince1970: 1_795_000_060))
    }

    /// The `data` member is found whatever the members' order and spacing, and not inside another member.
    @Test func findsTheDataMember() {
        func bytes(_ text: String) -> String? { EnvelopeData.bytes(in: Data(text.utf8)).map { String(decoding: $0, as: UTF8.self) } }
        #expect(bytes(#"{"seq":1,"data":{"a":[1,{"data":2}],"b":"}\"data\":"}}"#) == #"{"a":[1,{"data":2}],"b":"}\"data\":"}"#)
        #expect(bytes(#"{ "data" : [1, 2] , "note":"data","seq":1 }"#) == "[1, 2]")
        #expect(bytes(#"{"data":"x\\"}"#) == #""x\\""#)
        #expect(bytes(#"{"data":12.5}"#) == "12.5")
        #expect(bytes(#"{"seq":1,"meta":{"data":1}}"#) == nil)
        #expect(bytes(#"{"data":1,"data":2}"#) == nil)
        #expect(bytes(#"{"d\u0061ta":1}"#) == nil)
        #expect(bytes(#"[{"data":1}]"#) == nil)
        #expect(bytes(#"{"data":{"a":1}"#) == nil)
    }
}
