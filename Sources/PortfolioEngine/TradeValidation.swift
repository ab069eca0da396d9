import BusContract
import Foundation
import TickwireContract
import Money

/// The rules a trade must meet before it is stored.
public enum TradeValidation {
    /// How far in the future a trade's date may be, for clocks that disagree a little.
    public static let clockSkew: TimeInterval = 60

    /// `request` with its codes upper-cased, or an invalid-params error naming the broken rule.
    public static func validate(_ request: AddTradeRequest, knownAssets: Set<String>, now: Date) throws -> AddTradeRequest {
        var request = request
        request.asset = try knownAsset(request.asset, knownAssets: knownAssets)
        request.currency = try Currency(code: request.currency).code
        guard request.amount > .zero else { throw RPCError.invalidParams("amount must be positive, got \(request.amount)") }
        guard !request.price.isNegative else { throw RPCError.invalidParams("price must not be negative, got \(request.price)") }
        guard request.date.timeIntervalSince(now) <= clockSkew else {
            throw RPCError.invalidParams("date \(wireText(request.date)) is in the future")
        }
        let requestID = request.requestId.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !requestID.isEmpty, requestID.count <= 200 else {
            throw RPCError.invalidParams("requestId must be 1 to 200 characters")
        }
        return request
    }

    /// `asset` upper-cased if the portfolio knows it (from masterdata or a price).
    public static func knownAsset(_ asset: String, knownAssets: Set<String>) throws -> String {
        let symbol = asset.uppercased()
        guard knownAssets.contains(symbol) else {
            throw RPCError.invalidParams(knownAssets.isEmpty
                ? "unknown asset \(asset): no assets are known yet (is rates-fetcher running?)"
                : "unknown asset \(asset)")
        }
        return symbol
    }

    /// A date as the wire writes it: UTC, to the nearest millisecond.
    private static func wireText(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: milliseconds / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
