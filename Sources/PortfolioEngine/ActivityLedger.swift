import BusContract
import Foundation
import Money
import TickwireContract

/// The rule every change of the activities keeps: a sell or transfer out never takes more than is held at its date, in its
/// portfolio (what another portfolio holds of the asset does not count).
public enum ActivityLedger {
    /// What one portfolio holds of one asset: the unit the rule is kept in.
    public struct Position: Hashable, Sendable {
        /// The portfolio.
        public var portfolio: String
        /// The asset.
        public var asset: String

        /// The position of `trade`.
        public init(_ trade: Trade) {
            portfolio = trade.portfolio
            asset = trade.asset
        }
    }

    /// A sell or transfer out of more than was held at its date.
    public struct Overdraft: Sendable, Equatable {
        /// The activity that takes too much.
        public var trade: Trade
        /// What was held of its asset just before it.
        public var held: ExactDecimal
    }

    /// `activities` in the order they happened: by date, then by when they were recorded, then by id.
    public static func ordered(_ activities: [Trade]) -> [Trade] {
        activities.sorted { ($0.date, $0.recordedAt, $0.id) < ($1.date, $1.recordedAt, $1.id) }
    }

    /// The first activity, in time, that takes more of its asset than its portfolio holds at its date; nil when none does.
    public static func firstOverdraft(in activities: [Trade]) throws -> Overdraft? {
        var held: [Position: ExactDecimal] = [:]
        for trade in ordered(activities) {
            let position = Position(trade)
            let before = held[position] ?? .zero
            switch trade.kind {
            case .buy, .transferIn: held[position] = try before + trade.amount
            case .sell, .transferOut:
                guard trade.amount <= before else { return Overdraft(trade: trade, held: before) }
                held[position] = try before - trade.amount
            case .fee: continue
            }
        }
        return nil
    }

    /// Throws an invalid-params error naming asset, portfolio, date, held and asked amounts when `activities` (as they would
    /// be after a change to activity `changed`) take more of an asset than their portfolio holds at some date.
    public static func check(_ activities: [Trade], changed: String) throws {
        guard let overdraft = try firstOverdraft(in: activities) else { return }
        let trade = overdraft.trade
        let date = TradeValidation.wireText(trade.date)
        let action = trade.kind == .sell ? "sell" : "transfer out"
        let data = ["asset": trade.asset, "portfolio": trade.portfolio, "date": date, "held": overdraft.held.description,
                    "asked": trade.amount.description, "trade": trade.id]
        let place = trade.portfolio == Trade.mainPortfolio ? "" : " in portfolio \(trade.portfolio)"
        if trade.id == changed {
            throw RPCError(code: RPCError.Code.invalidParams,
                           message: "invalid params: cannot \(action) \(trade.amount) \(trade.asset) on \(date): \(overdraft.held) \(trade.asset) held then\(place)",
                           data: data)
        }
        throw RPCError(code: RPCError.Code.invalidParams,
                       message: "invalid params: this change would leave the \(action) of \(trade.amount) \(trade.asset) on \(date) "
                           + "(trade \(trade.id)) taking more than the \(overdraft.held) \(trade.asset) held then\(place)",
                       data: data)
    }
}
