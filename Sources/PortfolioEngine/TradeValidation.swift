import BusContract
import Foundation
import TickwireContract
import Money

/// The rules a trade must meet before it is stored.
public enum TradeValidation {
    /// How far in the future a trade's date may be, for clocks that disagree a little.
    public static let clockSkew: TimeInterval = 60

    /// `request` with its codes upper-cased, or an invalid-params error naming the broken rule.
    ///
    /// A buy, sell or transfer has a positive amount and a price that is not negative (a transfer out none: its cost
    /// comes from the lots it moves); a fee on a buy or sell is not negative; a fee activity has a positive `fee` and
    /// neither amount nor price. Every currency is an ISO 4217 fiat, a metal or an asset the portfolio knows. A portfolio
    /// name, when given, keeps ``PortfolioNames``' rule and comes back trimmed.
    public static func validate(_ request: AddTradeRequest, knownAssets: Set<String>, now: Date) throws -> AddTradeRequest {
        var request = request
        if let portfolio = request.portfolio { request.portfolio = try PortfolioNames.validate(portfolio) }
        request.asset = try knownAsset(request.asset, knownAssets: knownAssets)
        if var fee = request.fee {
            fee.currency = try knownCurrency(fee.currency, knownAssets: knownAssets, what: "fee currency")
            guard !fee.amount.isNegative else { throw RPCError.invalidParams("fee must not be negative, got \(fee.amount)") }
            request.fee = fee
        }
        request.currency = try knownCurrency(request.currency, knownAssets: knownAssets, what: "currency")
        switch request.kind {
        case .buy, .sell, .transferIn, .transferOut:
            guard request.amount > .zero else { throw RPCError.invalidParams("amount must be positive, got \(request.amount)") }
            guard !request.price.isNegative else { throw RPCError.invalidParams("price must not be negative, got \(request.price)") }
            if request.kind == .transferOut, !request.price.isZero {
                throw RPCError.invalidParams("a transfer_out takes its cost from the lots it moves: leave price out, got \(request.price)")
            }
            if request.kind == .transferIn || request.kind == .transferOut, request.fee != nil {
                throw RPCError.invalidParams("a \(request.kind.rawValue) carries no fee: record the fee as a fee activity")
            }
        case .fee:
            guard let fee = request.fee, fee.amount > .zero else {
                throw RPCError.invalidParams("a fee activity needs a positive fee {amount, currency}, got \(request.fee.map(\.description) ?? "none")")
            }
            guard request.amount.isZero, request.price.isZero else {
                throw RPCError.invalidParams("a fee activity has no amount or price (its amount is fee.amount), got amount \(request.amount) and price \(request.price)")
            }
            request.currency = fee.currency
        }
        guard request.date.timeIntervalSince(now) <= clockSkew else {
            throw RPCError.invalidParams("date \(wireText(request.date)) is in the future")
        }
        let requestID = request.requestId.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !requestID.isEmpty, requestID.count <= 200 else {
            throw RPCError.invalidParams("requestId must be 1 to 200 characters")
        }
        return request
    }

    /// `code` upper-cased if it is an ISO 4217 fiat, a metal, or an asset the portfolio knows; a malformed code throws
    /// ``MoneyError/invalidCurrencyCode(_:)``, an unknown one an invalid-params error naming `what` it is.
    public static func knownCurrency(_ code: String, knownAssets: Set<String>, what: String) throws -> String {
        let currency = try Currency(code: code)
        guard currency.kind != .crypto || knownAssets.contains(currency.code) else {
            throw RPCError.invalidParams("unknown \(what) \(code): not an ISO 4217 currency, a metal or an asset the portfolio knows")
        }
        return currency.code
    }

    /// `by` as the audit history records it: trimmed, at most 200 characters, `anonymous` when absent or blank.
    public static func author(_ by: String?) throws -> String {
        let name = by?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard name.count <= 200 else { throw RPCError.invalidParams("by must be at most 200 characters") }
        return name.isEmpty ? "anonymous" : name
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
    static func wireText(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: milliseconds / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
