import Foundation

/// How old a view's data is: when it was current and how long ago that was.
public struct DataAge: Codable, Sendable, Equatable {
    /// When the data was current, ISO 8601 UTC, e.g. "2025-06-15T15:06:40Z".
    public var asOf: String
    /// The same moment for the reader's locale, e.g. "15. Juni 2025, 15:06".
    public var asOfText: String
    /// Whole seconds between `asOf` and the view's making (0 if `asOf` lies ahead).
    public var seconds: Int
    /// The age for people: "40 s", "5 min", "3 h", "2 days".
    public var text: String

    /// The age of data current at `asOf`, seen at `now`.
    public init(asOf: Date, now: Date, locale: String) {
        let seconds = max(0, Int(now.timeIntervalSince(asOf).rounded(.down)))
        self.asOf = DisplayDate.iso(asOf)
        self.asOfText = DisplayDate.dateTime(asOf, locale: locale)
        self.seconds = seconds
        self.text = Self.describe(seconds: seconds)
    }

    /// Data older than this (five minutes) is called out in a notice.
    public static let staleAfterSeconds = 300

    /// Whether the data is older than ``staleAfterSeconds``.
    public var isStale: Bool { seconds > Self.staleAfterSeconds }

    /// A duration for people: seconds under a minute, then minutes, hours, days (rounded down).
    public static func describe(seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3_600: "\(seconds / 60) min"
        case ..<86_400: "\(seconds / 3_600) h"
        case ..<172_800: "1 day"
        default: "\(seconds / 86_400) days"
        }
    }

    /// The age of the oldest of `dates`, or nil when there are none.
    public static func oldest(_ dates: [Date], now: Date, locale: String) -> DataAge? {
        dates.min().map { DataAge(asOf: $0, now: now, locale: locale) }
    }
}
