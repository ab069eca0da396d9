import Foundation
import Market

/// How long closed candles of each interval are kept: older ones are deleted as newer ones are stored.
public struct CandleRetention: Sendable, Equatable, CustomStringConvertible {
    /// The span kept per interval; an interval missing is kept without end.
    public var spans: [CandleInterval: Duration]

    /// A retention of `spans`.
    public init(_ spans: [CandleInterval: Duration]) {
        self.spans = spans
    }

    /// 1m: 3 days, 5m: 30 days, 1h: 2 years, 1d: 20 years.
    public static let standard = Self([
        .oneMinute: .seconds(3 * 86_400), .fiveMinutes: .seconds(30 * 86_400),
        .oneHour: .seconds(730 * 86_400), .oneDay: .seconds(20 * 365 * 86_400),
    ])

    /// The span of `interval`'s candles kept, in whole seconds; nil: without end.
    public func seconds(_ interval: CandleInterval) -> Int64? {
        spans[interval].map { $0.components.seconds }
    }

    /// `1m=3d,5m=30d,1h=2y,1d=20y`: the form ``init(parsing:)`` reads (`none` for without end).
    public var description: String {
        CandleInterval.allCases.map { interval in
            "\(interval.rawValue)=\(seconds(interval).map(Self.format) ?? "none")"
        }.joined(separator: ",")
    }

    /// Reads `1m=3d,5m=30d,1h=2y,1d=none` (units `m` minutes, `h` hours, `d` days, `y` 365 days; `none` keeps them
    /// without end), starting from ``standard`` for the intervals it leaves out; throws a clear error for anything else.
    public init(parsing text: String) throws(CandleRetentionError) {
        var spans = Self.standard.spans
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let interval = CandleInterval(rawValue: parts[0]) else {
                throw CandleRetentionError(text: String(item), reason: "expected INTERVAL=SPAN with INTERVAL one of 1m, 5m, 1h, 1d")
            }
            if parts[1] == "none" {
                spans[interval] = nil
                continue
            }
            guard let seconds = Self.seconds(parts[1]) else {
                throw CandleRetentionError(text: String(item), reason: "expected a span such as 90m, 36h, 3d, 2y or none")
            }
            spans[interval] = .seconds(seconds)
        }
        self.spans = spans
    }

    private static let units: [(Character, Int64)] = [("y", 365 * 86_400), ("d", 86_400), ("h", 3_600), ("m", 60)]

    private static func seconds(_ text: String) -> Int64? {
        guard let unit = text.last, let size = units.first(where: { $0.0 == unit })?.1,
              let count = Int64(text.dropLast()), count > 0, count <= 1_000 * 365 * 86_400 / size else { return nil }
        return count * size
    }

    private static func format(_ seconds: Int64) -> String {
        for (unit, size) in units where seconds % size == 0 { return "\(seconds / size)\(unit)" }
        return "\(seconds / 60)m"
    }
}

/// A retention text that cannot be read.
public struct CandleRetentionError: Error, Equatable, CustomStringConvertible {
    /// The item that could not be read.
    public var text: String
    /// What was expected.
    public var reason: String

    /// The error of `text`, which is not `reason`.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    /// A message naming the item.
    public var description: String { "candle retention \"\(text)\": \(reason)" }
}
