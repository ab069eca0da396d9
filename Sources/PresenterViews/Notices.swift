import Foundation
import Market

/// Messages for people about data that is missing, stale or from a feed in trouble.
public enum Notices {
    /// One notice per feed that is neither ok nor a live plugin, e.g. "bitso is failing (HTTP 503); last good data 12 min ago".
    public static func feedProblems(_ statuses: [FeedStatus], now: Date) -> [String] {
        statuses.filter { $0.state != .ok && $0.state != .live }.map { status in
            let state = switch status.state {
            case .stale: "stale"
            case .gone: "gone"
            default: "failing"
            }
            var text = "\(status.feed) is \(state)"
            if let message = status.message, !message.isEmpty { text += " (\(message))" }
            if let success = status.lastSuccess {
                text += "; last good data \(DataAge.describe(seconds: max(0, Int(now.timeIntervalSince(success).rounded(.down))))) ago"
            } else {
                text += "; no good data yet"
            }
            return text
        }
    }

    /// "Prices are 7 min old." when `age` is stale, else nothing.
    public static func staleness(_ age: DataAge?, what: String) -> [String] {
        guard let age, age.isStale else { return [] }
        return ["\(what) are \(age.text) old."]
    }
}
