import Foundation
import BusContract
import Money

/// `alerts.add {asset, currency, above | below, requestId?}`: a rule on an asset's price in a currency.
public struct AddAlertRequest: Codable, Sendable, Equatable {
    /// The asset, e.g. `BTC`.
    public var asset: String
    /// The currency of the threshold, e.g. `USD`.
    public var currency: String
    /// Fires when the price rises to this or above.
    public var above: ExactDecimal?
    /// Fires when the price falls to this or below.
    public var below: ExactDecimal?
    /// A client-chosen id: a retried request with the same id answers the first rule again.
    public var requestId: String?

    /// A rule request; give exactly one of `above` and `below`.
    public init(asset: String, currency: String, above: ExactDecimal? = nil, below: ExactDecimal? = nil, requestId: String? = nil) {
        self.asset = asset
        self.currency = currency
        self.above = above
        self.below = below
        self.requestId = requestId
    }
}

/// One alert rule as price-alerts keeps it.
public struct AlertRule: Codable, Sendable, Equatable {
    /// The rule's id.
    public var id: String
    /// The asset, upper-cased.
    public var asset: String
    /// The currency, upper-cased.
    public var currency: String
    /// The threshold it rises to, if it is an `above` rule.
    public var above: ExactDecimal?
    /// The threshold it falls to, if it is a `below` rule.
    public var below: ExactDecimal?
    /// When it was added.
    public var createdAt: Date
    /// Whether its condition holds at the last price seen (it fires again only after it stopped holding).
    public var holds: Bool
    /// When it last fired.
    public var lastFired: Date?

    /// A rule.
    public init(id: String, asset: String, currency: String, above: ExactDecimal?, below: ExactDecimal?, createdAt: Date, holds: Bool, lastFired: Date?) {
        self.id = id
        self.asset = asset
        self.currency = currency
        self.above = above
        self.below = below
        self.createdAt = createdAt
        self.holds = holds
        self.lastFired = lastFired
    }
}

extension AlertRule {
    /// `above` or `below`: which way the rule looks.
    public var condition: String { above != nil ? "above" : "below" }

    /// The rule's threshold.
    public var threshold: ExactDecimal { above ?? below ?? .zero }

    /// Whether the condition holds at `price`: at or above an `above` threshold, at or below a `below` one.
    public func holds(at price: ExactDecimal) -> Bool {
        if let above { return price >= above }
        if let below { return price <= below }
        return false
    }

    /// The alert this rule fires at `price`.
    public func fired(at price: ExactDecimal, on date: Date) -> AlertFired {
        AlertFired(ruleId: id, asset: asset, currency: currency, condition: condition, threshold: threshold, price: price, firedAt: date)
    }
}

/// `alerts.remove {id}`.
public struct RemoveAlertRequest: Codable, Sendable, Equatable {
    /// The rule's id.
    public var id: String

    /// A request to remove a rule.
    public init(id: String) { self.id = id }
}

/// The payload of `alert.<ASSET>.<FIAT>`: a rule's condition started to hold.
public struct AlertFired: Codable, Sendable, Equatable {
    /// The rule that fired.
    public var ruleId: String
    /// The asset.
    public var asset: String
    /// The currency.
    public var currency: String
    /// `above` or `below`.
    public var condition: String
    /// The rule's threshold.
    public var threshold: ExactDecimal
    /// The price that crossed it.
    public var price: ExactDecimal
    /// When it fired.
    public var firedAt: Date

    /// An alert.
    public init(ruleId: String, asset: String, currency: String, condition: String, threshold: ExactDecimal, price: ExactDecimal, firedAt: Date) {
        self.ruleId = ruleId
        self.asset = asset
        self.currency = currency
        self.condition = condition
        self.threshold = threshold
        self.price = price
        self.firedAt = firedAt
    }
}

extension AddAlertRequest {
    /// The request's asset and currency as `Currency` reads them (upper-cased, spaces around trimmed), once it has exactly
    /// one threshold and that is positive; else the error it is refused with (JSON-RPC -32602 through `RPCError(answering:)`).
    /// The service and the mock both check a request with this, so they refuse the same requests with the same words.
    public func validated() throws -> (asset: String, currency: String) {
        let asset = try Currency(code: asset.trimmingCharacters(in: .whitespaces)).code
        let currency = try Currency(code: currency.trimmingCharacters(in: .whitespaces)).code
        guard (above == nil) != (below == nil) else { throw RPCError.invalidParams("give exactly one of above and below") }
        guard (above ?? below ?? .zero) > .zero else { throw RPCError.invalidParams("the threshold must be positive") }
        return (asset, currency)
    }
}
