import Foundation

/// A day of the proleptic Gregorian calendar in UTC, written "2026-11-24": the day a daily rate is for.
///
/// Converted by Howard Hinnant's civil-day arithmetic rather than a `Calendar`, so no time-zone data is loaded.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public var daysSince1970: Int

    /// The day `daysSince1970` days after 1970-01-01.
    public init(daysSince1970: Int) { self.daysSince1970 = daysSince1970 }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        daysSince1970 = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The day written `text` ("YYYY-MM-DD"); nil for anything else, or a date that does not exist (2026-02-30).
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let candidate = Self(year: year, month: month, day: day)
        let written = candidate.components
        guard written.year == year, written.month == month, written.day == day else { return nil }
        self = candidate
    }

    /// The day `year`-`month`-`day` (days_from_civil).
    public init(year: Int, month: Int, day: Int) {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        daysSince1970 = era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day (civil_from_days).
    public var components: (year: Int, month: Int, day: Int) {
        let z = daysSince1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// "YYYY-MM-DD".
    public var iso: String {
        let (year, month, day) = components
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    public var description: String { iso }

    /// Saturday or Sunday, when the ECB publishes no rates.
    public var isWeekend: Bool {
        // 1970-01-01 was a Thursday: 0 Thursday, 2 Saturday, 3 Sunday.
        let weekday = ((daysSince1970 % 7) + 7) % 7
        return weekday == 2 || weekday == 3
    }

    /// The day `count` days later (earlier for a negative `count`).
    public func adding(days count: Int) -> CalendarDay { CalendarDay(daysSince1970: daysSince1970 + count) }

    /// Midnight UTC at the start of this day.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(daysSince1970) * 86_400) }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }
}
