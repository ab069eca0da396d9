import BusContract
import Foundation
import Market
import RatesFetcherCore
import Testing

/// Whether `decision` is an acceptance.
private func accepted(_ decision: IngestDecision) -> Bool {
    if case .accepted = decision { return true }
    return false
}

/// The reason of a refusal, nil for an acceptance.
private func reason(_ decision: IngestDecision) -> IngestRefusal? {
    if case .refused(let refusal, _) = decision { return refusal.reason }
    return nil
}

@Suite("Feed registry")
struct FeedRegistryTests {
    let clock = TestClock()

    /// Per topic, `seq` must grow; an equal or smaller one is refused, another topic has its own.
    @Test func seqGrowsPerTopic() {
        var registry = FeedRegistry(reserved: [])
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 5), userID: nil, at: clock.now)))
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 5), userID: nil, at: clock.now)) == .seq)
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 3), userID: nil, at: clock.now)) == .seq)
        #expect(accepted(registry.receive(Plugin.frames("rate.testfeed.EUR-USD", seq: 1, data: #"{"from":"EUR","to":"USD","rate":"1.1"}"#), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 6), userID: nil, at: clock.now)))
        let status = registry.statuses.first
        #expect(status?.accepted == 4)
        #expect(status?.refused == ["seq": 2])
    }

    /// Without keys, the first heartbeat's instance owns the name: another instance's heartbeat is refused while
    /// the owner is live; once the owner is stale (3 heartbeats missed), a new instance takes the name over, its
    /// topics start afresh, and the old instance is refused while the new one is live.
    @Test func anotherInstanceTakesOverOnceTheOwnerIsStale() {
        var registry = FeedRegistry(reserved: [])
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 7), userID: nil, at: clock.now)))
        clock.advance(.seconds(2))
        #expect(reason(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 2, data: Plugin.heartbeat(instance: "b")), userID: nil, at: clock.now)) == .nameTaken)
        #expect(registry.expire(at: clock.now).isEmpty, "2 s of silence is not 3 intervals of 1 s")
        #expect(reason(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 3, data: Plugin.heartbeat(instance: "b")), userID: nil, at: clock.now)) == .nameTaken)
        clock.advance(.seconds(2))
        #expect(registry.expire(at: clock.now).map(\.status.state) == [.stale])
        let takeover = registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "b")), userID: nil, at: clock.now)
        guard case .accepted(_, let status) = takeover else {
            Issue.record("a new instance is refused while the owner is stale: \(takeover)")
            return
        }
        #expect(status?.state == .live, "the take-over makes the feed live again and says so")
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: nil, at: clock.now)), "a new owner's topics start afresh")
        #expect(reason(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 4, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)) == .nameTaken)
        #expect(registry.statuses.first?.refused == ["name-taken": 3])
    }

    /// Without keys, while another instance heartbeats for a live name, the name's data cannot be told from the
    /// owner's: it is refused `name-taken`; 3 of the owner's intervals after the last such heartbeat, it is accepted again.
    @Test func dataOfAContestedNameIsRefused() {
        var registry = FeedRegistry(reserved: [])
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: nil, at: clock.now)))
        #expect(reason(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "b")), userID: nil, at: clock.now)) == .nameTaken)
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 50, last: "9"), userID: nil, at: clock.now)) == .nameTaken)
        clock.advance(.seconds(2))
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 2, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)))
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 2), userID: nil, at: clock.now)) == .nameTaken)
        clock.advance(.seconds(2))
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 3, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 3), userID: nil, at: clock.now)), "no contender for 3 intervals")
        #expect(registry.statuses.first?.refused == ["name-taken": 3])
    }

    /// Without keys, a name whose owner is gone is free: a new instance takes it, its topics afresh.
    @Test func anotherInstanceTakesTheNameOfAGoneOwner() {
        var registry = FeedRegistry(reserved: [])
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "a")), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 7), userID: nil, at: clock.now)))
        clock.advance(.seconds(31))
        let gone = registry.expire(at: clock.now)
        #expect(gone.map(\.status.state) == [.gone])
        #expect(gone.first?.retracted.map(\.rawValue) == ["quote.testfeed.ZZZ-USD"])
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: nil, at: clock.now)), "a gone name's topics start afresh")
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "b")), userID: nil, at: clock.now)))
        #expect(registry.statuses.first?.state == .live)
    }

    /// With keys, a name belongs to the User-Id that fed it first: another key is refused even after the owner is
    /// gone; the owner's own restart (a new instance) starts its topics afresh at once.
    @Test func withKeysTheNameBelongsToItsKey() {
        var registry = FeedRegistry(reserved: [])
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 9, data: Plugin.heartbeat(instance: "a")), userID: "writer:alice", at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 9), userID: "writer:alice", at: clock.now)))
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 10), userID: "writer:bob", at: clock.now)) == .nameTaken)
        #expect(accepted(registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "a2")), userID: "writer:alice", at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: "writer:alice", at: clock.now)), "a restart starts afresh")
        clock.advance(.seconds(31))
        _ = registry.expire(at: clock.now)
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 1), userID: "writer:bob", at: clock.now)) == .nameTaken)
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1), userID: "writer:alice", at: clock.now)))
        #expect(registry.statuses.first?.state == .live)
    }

    /// A message under a built-in feed's name is refused and counted with that feed, not as a plugin.
    @Test func reservedNamesAreCountedWithTheirFeed() {
        var registry = FeedRegistry(reserved: ["bitso"])
        let decision = registry.receive(Plugin.frames("quote.bitso.BTC-MXN", seq: 1, data: Plugin.quote("BTC", "MXN", feed: "bitso")), userID: nil, at: clock.now)
        #expect(reason(decision) == .reserved)
        #expect(registry.refusals(ofReserved: "bitso") == ["reserved": 1])
        #expect(registry.statuses.isEmpty)
    }

    /// Past its rate a feed's messages are refused (`rate-limit`), without touching another feed's budget; a second
    /// later its bucket has refilled.
    @Test func rateLimitPerFeed() {
        var registry = FeedRegistry(reserved: [], limits: IngestLimits(ratePerSecond: 5))
        let results = (1...8).map { registry.receive(Plugin.goodQuote(seq: $0), userID: nil, at: clock.now) }
        #expect(results.filter(accepted).count == 5)
        #expect(results.dropFirst(5).allSatisfy { reason($0) == .rateLimit })
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1, feed: "other"), userID: nil, at: clock.now)))
        clock.advance(.seconds(1))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 9), userID: nil, at: clock.now)))
        #expect(registry.statuses.first { $0.feed == "testfeed" }?.refused == ["rate-limit": 3])
    }

    /// `live` on the first message, `stale` after 3 heartbeat intervals (1 s until a heartbeat says otherwise),
    /// `live` again with the next message, `gone` after 30 s with its topics to retract; each change is a status.
    @Test func statesFollowTheSilence() {
        var registry = FeedRegistry(reserved: [])
        guard case .accepted(_, let first?) = registry.receive(Plugin.goodQuote(seq: 1), userID: nil, at: clock.now) else {
            Issue.record("the first message registers the feed with a status")
            return
        }
        #expect(first.state == .live && first.kind == .plugin && first.accepted == 1 && first.lastMessage == clock.now.date)
        clock.advance(.milliseconds(2900))
        #expect(registry.expire(at: clock.now).isEmpty)
        clock.advance(.milliseconds(200))
        #expect(registry.expire(at: clock.now).map(\.status.state) == [.stale])
        #expect(registry.expire(at: clock.now).isEmpty, "a change is reported once")
        guard case .accepted(_, let back?) = registry.receive(Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(interval: 2000)), userID: nil, at: clock.now) else {
            Issue.record("a message of a stale feed makes it live again, with a status")
            return
        }
        #expect(back.state == .live)
        clock.advance(.milliseconds(5900))
        #expect(registry.expire(at: clock.now).isEmpty, "3 intervals of 2 s")
        clock.advance(.milliseconds(200))
        #expect(registry.expire(at: clock.now).map(\.status.state) == [.stale])
        clock.advance(.seconds(24))
        let gone = registry.expire(at: clock.now)
        #expect(gone.map(\.status.state) == [.gone])
        #expect(gone.first?.retracted.map(\.rawValue) == ["quote.testfeed.ZZZ-USD"])
        #expect(registry.statuses.map(\.state) == [.gone])
    }

    /// A plugin's own status saying `error` shows while it is live, with its message.
    @Test func reportedErrorShows() {
        var registry = FeedRegistry(reserved: [])
        let decision = registry.receive(
            Plugin.frames("status.testfeed", seq: 1, data: #"{"feed":"testfeed","state":"error","message":"exchange down"}"#), userID: nil, at: clock.now)
        guard case .accepted(_, let status?) = decision else {
            Issue.record("a status is accepted and published merged")
            return
        }
        #expect(status.state == .error && status.message == "exchange down" && status.kind == .plugin)
    }

    /// A name of which nothing was accepted is listed as an error with its refusals.
    @Test func aFeedWithOnlyRefusalsIsAnError() {
        var registry = FeedRegistry(reserved: [])
        _ = registry.receive(Plugin.goodQuote(seq: 1, last: "0"), userID: nil, at: clock.now)
        let status = registry.statuses.first
        #expect(status?.feed == "testfeed" && status?.state == .error && status?.refused == ["value": 1] && status?.accepted == 0)
    }

    /// The registry keeps at most `maxFeeds` names, forgetting the one silent longest that is gone or never accepted;
    /// a feed may fill at most `maxTopicsPerFeed` topics.
    @Test func boundedFeedsAndTopics() {
        var registry = FeedRegistry(reserved: [], limits: IngestLimits(maxFeeds: 2, maxTopicsPerFeed: 1))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1, feed: "one"), userID: nil, at: clock.now)))
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1, feed: "two"), userID: nil, at: clock.now)))
        #expect(reason(registry.receive(Plugin.goodQuote(seq: 1, feed: "three"), userID: nil, at: clock.now)) == .topic)
        clock.advance(.seconds(31))
        _ = registry.expire(at: clock.now)
        #expect(accepted(registry.receive(Plugin.goodQuote(seq: 1, feed: "three"), userID: nil, at: clock.now)))
        #expect(registry.statuses.map(\.feed).count == 2)
        let other = Plugin.frames("quote.three.ABC-USD", seq: 1, data: Plugin.quote("ABC", feed: "three"))
        #expect(reason(registry.receive(other, userID: nil, at: clock.now)) == .topic)
        #expect(registry.unattributedRefusals == ["topic": 1])
    }
}
