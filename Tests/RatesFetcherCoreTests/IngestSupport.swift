import Foundation
import RatesFetcherCore
import Synchronization

/// What a plugin puts on the wire, written as a plugin in any language would: JSON text.
enum Plugin {
    /// The two frames of a message on `topic` with an envelope around `data` (JSON text).
    static func frames(
        _ topic: String, seq: Int, data: String, source: String? = nil, type: String? = nil, version: Int? = 1
    ) -> [Data] {
        let kind = String(topic.prefix { $0 != "." })
        let feed = source ?? String(topic.split(separator: ".").dropFirst().first ?? "")
        let versionMember = version.map { #""version":\#($0),"# } ?? ""
        let body = #"{\#(versionMember)"type":"\#(type ?? kind)","seq":\#(seq),"time":"2026-11-26T10:00:00.000Z","source":"\#(feed)","data":\#(data)}"#
        return [Data(topic.utf8), Data(body.utf8)]
    }

    /// A quote's JSON: `feed`'s `base`-`quote` at `last` (JSON text of the member, e.g. `"1.5"`), with `extra` members.
    static func quote(_ base: String = "ZZZ", _ quote: String = "USD", last: String = #""1.25""#, feed: String = "testfeed", extra: String = "") -> String {
        #"{"source":"\#(feed)","market":{"base":"\#(base)","quote":"\#(quote)"},"last":\#(last)\#(extra.isEmpty ? "" : ",\(extra)")}"#
    }

    /// A heartbeat's JSON.
    static func heartbeat(feed: String = "testfeed", instance: String = "run-1", interval: Int = 1000) -> String {
        #"{"service":"\#(feed)","instance":"\#(instance)","topics":0,"dropped":0,"intervalMilliseconds":\#(interval)}"#
    }

    /// A good quote message of `testfeed`'s ZZZ-USD.
    static func goodQuote(seq: Int, last: String = "1.25", feed: String = "testfeed") -> [Data] {
        frames("quote.\(feed).ZZZ-USD", seq: seq, data: quote(last: "\"\(last)\"", feed: feed))
    }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let time = Mutex(IngestTime(instant: .now, date: Date(timeIntervalSince1970: 1_795_000_000)))

    var now: IngestTime { time.withLock { $0 } }

    func advance(_ duration: Duration) { time.withLock { $0 = $0.advanced(by: duration) } }

    var read: @Sendable () -> IngestTime { { [self] in now } }
}
