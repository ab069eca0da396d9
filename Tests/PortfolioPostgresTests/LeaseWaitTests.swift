@testable import PortfolioPostgres
import Testing

/// How long a request waits for a connection before it answers that the database is unavailable.
@Suite("PostgreSQL connection wait")
struct LeaseWaitTests {
    /// Outside a request with a deadline the store waits its whole lease timeout.
    @Test func noDeadlineWaitsTheLeaseTimeout() {
        #expect(PostgresPortfolio.firstWait(.milliseconds(1_500), deadline: nil) == .milliseconds(1_500))
    }

    /// A caller due in 1 s hears -32000 before its deadline: the wait keeps back the downstream reserve (a quarter).
    @Test func aSoonerDeadlineShortensTheWait() {
        let now = ContinuousClock.now
        #expect(PostgresPortfolio.firstWait(.milliseconds(1_500), deadline: now + .seconds(1), now: now) == .milliseconds(750))
        #expect(PostgresPortfolio.firstWait(.milliseconds(1_500), deadline: now + .seconds(10), now: now) == .milliseconds(1_500))
    }

    /// A deadline already passed still waits a moment: a connection at hand is taken, not refused.
    @Test func aPassedDeadlineWaitsTheFloor() {
        let now = ContinuousClock.now
        #expect(PostgresPortfolio.firstWait(.milliseconds(1_500), deadline: now - .seconds(1), now: now) == .milliseconds(50))
    }

    /// A connection that comes as the wait ends is either taken (the body runs, the wait answers nothing) or refused (the
    /// caller hears -32000 and nothing runs), never both.
    @Test func theLeaseIsTakenOrTimedOutNeverBoth() {
        let taken = LeaseState()
        #expect(taken.take())
        #expect(!taken.timeOut())
        #expect(taken.isTaken)
        let timedOut = LeaseState()
        #expect(timedOut.timeOut())
        #expect(!timedOut.take())
        #expect(!timedOut.isTaken)
    }

    /// However busy the pool, a request stops waiting after four lease timeouts, or before its caller's deadline.
    @Test func theWholeWaitIsCapped() {
        let now = ContinuousClock.now
        #expect(PostgresPortfolio.waitLimit(.milliseconds(1_500), deadline: nil, now: now) == now + .seconds(6))
        #expect(PostgresPortfolio.waitLimit(.milliseconds(1_500), deadline: now + .seconds(2), now: now) == now + .milliseconds(1_500))
        #expect(PostgresPortfolio.waitLimit(.milliseconds(1_500), deadline: now + .seconds(60), now: now) == now + .seconds(6))
        #expect(PostgresPortfolio.waitLimit(.milliseconds(1_500), deadline: now - .seconds(1), now: now) == now + .milliseconds(50))
    }
}
