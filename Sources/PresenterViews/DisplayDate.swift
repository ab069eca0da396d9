import Foundation

/// Dates for people and for machines, always in UTC with the reader's locale given explicitly.
public enum DisplayDate {
    /// UTC, the one time zone views are shown in.
    static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// ISO 8601 in UTC without fractions, e.g. "2025-06-15T15:06:40Z".
    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: utc))
    }

    /// The calendar day in UTC, e.g. "2025-06-15" (an HTML date input's value).
    public static func isoDay(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: utc).year().month().day())
    }

    /// Date and time for `locale`, e.g. "15. Juni 2025, 15:06" (de_AT), "Jun 15, 2025 at 3:06 PM" (en_US).
    public static func dateTime(_ date: Date, locale: String) -> String {
        date.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: locale), calendar: calendar, timeZone: utc))
    }

    /// The date alone for `locale`, e.g. "15. Juni 2025" (de_AT), "Jun 15, 2025" (en_US).
    public static func day(_ date: Date, locale: String) -> String {
        date.formatted(Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: locale), calendar: calendar, timeZone: utc))
    }

    /// The time of day with seconds for `locale`, in UTC, e.g. "15:06:40" (de_AT), "3:06:40 PM" (en_US): a trade's.
    public static func time(_ date: Date, locale: String) -> String {
        date.formatted(Date.FormatStyle(date: .omitted, time: .standard, locale: Locale(identifier: locale), calendar: calendar, timeZone: utc))
    }

    /// The time of day without seconds for `locale`, in UTC, e.g. "15:06" (de_AT), "3:06 PM" (en_US): a day's chart axis labels.
    public static func shortTime(_ date: Date, locale: String) -> String {
        date.formatted(Date.FormatStyle(date: .omitted, time: .shortened, locale: Locale(identifier: locale), calendar: calendar, timeZone: utc))
    }

    /// Day and month for `locale`, e.g. "15. Juni" (de_AT), "Jun 15" (en_US): chart axis labels.
    public static func dayMonth(_ date: Date, locale: String) -> String {
        date.formatted(Date.FormatStyle(locale: Locale(identifier: locale), calendar: calendar, timeZone: utc).month(.abbreviated).day())
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        return calendar
    }()
}
