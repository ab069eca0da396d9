import Foundation
import Money
import TickwireContract

/// The price alerts of the price-alerts plugin: its rules, and the alerts they fired, newest first.
public struct AlertsView: Codable, Sendable, Equatable {
    /// Which screen this is (`alerts`): what a client reads to know the view's shape.
    public var screen = "alerts"

    /// One rule.
    public struct Rule: Codable, Sendable, Equatable {
        /// The rule's id.
        public var id: String
        /// The asset, e.g. "BTC".
        public var asset: String
        /// `above` or `below`.
        public var condition: String
        /// The threshold, in the rule's currency.
        public var threshold: DisplayAmount
        /// Whether the condition holds at the last price seen.
        public var holds: Bool
        /// When it last fired, for the reader, if it has.
        public var lastFired: String?
    }

    /// One alert fired.
    public struct Fired: Codable, Sendable, Equatable {
        /// The rule that fired.
        public var ruleId: String
        /// The asset.
        public var asset: String
        /// `above` or `below`.
        public var condition: String
        /// The rule's threshold.
        public var threshold: DisplayAmount
        /// The price that crossed it.
        public var price: DisplayAmount
        /// When, ISO 8601.
        public var firedAt: String
        /// When, for the reader.
        public var firedAtText: String
    }

    /// Every rule, oldest first.
    public var rules: [Rule]
    /// The alerts fired while the presenter listened (and the last of each pair before), newest first.
    public var fired: [Fired]
    /// The reader's locale.
    public var locale: String
    /// The display currency (rules keep their own).
    public var currency: String?
    /// Messages to show: price-alerts unreachable, no rules yet.
    public var notices: [String]

    /// Builds the view; `rules` is nil when price-alerts could not be asked (`problem` says why).
    public static func make(rules: [AlertRule]?, fired: [AlertFired], problem: String?, context: ViewContext, notices: [String] = []) -> AlertsView {
        var allNotices = notices
        if let problem { allNotices.append("price-alerts: \(problem)") }
        if rules?.isEmpty == true { allNotices.append("No alert rules yet: add one with alerts.add (see Examples/price-alerts).") }
        let locale = context.locale
        return AlertsView(
            rules: (rules ?? []).map { rule in
                Rule(id: rule.id, asset: rule.asset, condition: rule.condition,
                     threshold: .price(rule.threshold, code: rule.currency, locale: locale), holds: rule.holds,
                     lastFired: rule.lastFired.map { DisplayDate.dateTime($0, locale: locale) })
            },
            fired: fired.map { Self.fired(of: $0, locale: locale) },
            locale: locale, currency: context.currency, notices: allNotices)
    }

    /// One alert as the list shows it.
    public static func fired(of alert: AlertFired, locale: String) -> Fired {
        Fired(ruleId: alert.ruleId, asset: alert.asset, condition: alert.condition,
              threshold: .price(alert.threshold, code: alert.currency, locale: locale),
              price: .price(alert.price, code: alert.currency, locale: locale),
              firedAt: DisplayDate.iso(alert.firedAt), firedAtText: DisplayDate.dateTime(alert.firedAt, locale: locale))
    }
}
