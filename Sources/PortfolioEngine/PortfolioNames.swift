import BusContract
import Foundation
import TickwireContract

/// The rules of portfolio names (named accounts, each activity carrying its own) and the list of portfolios.
public enum PortfolioNames {
    /// The longest name, in characters.
    public static let maxLength = 40

    /// `name` trimmed, or `main` when nil; an invalid-params error naming the rule when it is not 1 to 40 letters,
    /// digits, spaces, `-`, `_` or `.`.
    public static func validate(_ name: String?) throws -> String {
        guard let name else { return Trade.mainPortfolio }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxLength,
              trimmed.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType == .decimal || " -_.".unicodeScalars.contains($0) })
        else {
            throw RPCError.invalidParams(
                "portfolio must be 1 to \(maxLength) letters, digits, spaces, '-', '_' or '.' (trimmed), got \"\(name.prefix(60))\"")
        }
        return trimmed
    }

    /// Every portfolio with an activity in `activities`, and `main` always, with how many activities each has:
    /// `main` first, then by name.
    public static func list(_ activities: [Trade]) -> PortfolioList {
        var counts: [String: Int] = [Trade.mainPortfolio: 0]
        for activity in activities { counts[activity.portfolio, default: 0] += 1 }
        let names = counts.keys.sorted { ($0 == Trade.mainPortfolio ? 0 : 1, $0) < ($1 == Trade.mainPortfolio ? 0 : 1, $1) }
        return PortfolioList(portfolios: names.map { PortfolioSummary(name: $0, activities: counts[$0] ?? 0) })
    }
}
