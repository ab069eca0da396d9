import Foundation
import Money

/// An exact decimal from its text; tests state expected values exactly as the fixtures print them.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A time from milliseconds since 1970, as the APIs send it.
func time(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }

/// A clock that never moves, so mock output can be compared whole.
let fixedNow: @Sendable () -> Date = { time(milliseconds: 1_700_000_000_000) }

/// A time's milliseconds since 1970, rounded: a parsed ISO 8601 time is not bit-equal to one built from milliseconds.
func milliseconds(_ date: Date?) -> Int64? {
    date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
}
