/// Exponential backoff with jitter between reconnection attempts: the n-th wait is `initial × 2^(n-1)`, at most
/// `maximum`, less a random share of up to `jitter` of it, so many feeds do not reconnect in step.
public struct Backoff: Sendable {
    /// The first wait.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration
    /// The largest share taken off at random, 0...1.
    public var jitter: Double
    /// A random number in 0..<1.
    public var random: @Sendable () -> Double

    /// A backoff; `random` stands in for the generator in tests.
    public init(
        initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), jitter: Double = 0.5,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
        self.random = random
    }

    /// The wait before attempt `attempt` (1 for the first reconnection).
    public func delay(attempt: Int) -> Duration {
        var wait = initial
        for _ in 1..<max(attempt, 1) {
            wait = wait * 2
            if wait >= maximum { break }
        }
        wait = min(wait, maximum)
        return wait * (1 - jitter * random())
    }
}
