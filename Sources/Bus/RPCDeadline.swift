/// The deadline of the request being served, so that the calls a handler makes give up before its caller does.
///
/// A client sends how long it still waits as the request's `timeoutMs` member (a Tickwire extension of
/// JSON-RPC 2.0 that other servers ignore); ``RPCMethods`` runs the handler with ``current`` set from
/// it, and an ``RPCClient`` call made inside gives up at ``downstream(of:)`` of it: a deadline that shrinks
/// along the chain, so the service nearest the fault answers first, with what it can, while its callers
/// still wait.
public enum RPCDeadline {
    /// The deadline of the request being served, if its caller sent one.
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// The deadline of a call made while serving a request due at `deadline`: a quarter of what is left
    /// (at least 50 ms, at most a second) is kept back for the handler to answer with what it has.
    public static func downstream(of deadline: ContinuousClock.Instant, now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        let left = deadline - now
        let reserve = min(max(left / 4, .milliseconds(50)), .seconds(1))
        return deadline - reserve
    }

    /// When a call must give up: at `deadline` if one is given, and, while serving a request, before
    /// that request's own deadline (``downstream(of:now:)``); nil for no limit.
    static func due(_ deadline: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        [deadline, current.map { downstream(of: $0) }].compactMap { $0 }.min()
    }

    /// Whole milliseconds in `duration`, never below zero: a request's `timeoutMs`.
    static func milliseconds(_ duration: Duration) -> Int {
        max(0, Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000))
    }
}
