import BusContract
import Foundation
import Money
import TickwireContract

/// Realized and unrealized gains of the activities, exact, as a pure function.
///
/// Every amount enters in the display currency at its minor units: an amount in that currency rounded half-even,
/// one in another currency as the converter's `total` converted it (also rounded half-even). A buy's lot costs its
/// `amount × price` plus its fee; a transfer in is a lot at its `amount × price` (zero when it gives no price). A sell
/// or transfer out takes lots, oldest first (FIFO) or at the pool's average cost; the cost of part of a lot is its
/// cost × the part / its quantity, rounded half-even to minor units, and the lot keeps the rest, so no cent is lost
/// or made by rounding. A sell realizes its proceeds (`amount × price` less its fee) over the cost taken; a transfer
/// out realizes nothing. A fee activity is a cost of its asset: it reduces the asset's realized gain.
public enum Gains {
    /// The amounts in `activities` that are not in `currency`, each once: what the converter must convert for ``compute``.
    public static func conversions(_ activities: [Trade], currency: Currency) throws -> [CurrencyAmount] {
        var seen: Set<CurrencyAmount> = []
        var items: [CurrencyAmount] = []
        for activity in activities {
            for item in [try gross(activity), activity.fee].compactMap({ $0 })
            where item.currency != currency.code && seen.insert(item).inserted {
                items.append(item)
            }
        }
        return items
    }

    /// The gains of `activities` in `currency` by `method`, valued at `prices` (keyed by ``Valuations/priceKey(asset:currency:)``).
    ///
    /// - Parameter converted: each amount of ``conversions(_:currency:)`` in `currency`; an asset with an amount
    ///   missing here has its cost basis, realized and unrealized gain and fees unknown (nil), with a warning.
    public static func compute(
        activities: [Trade], method: CostBasisMethod, currency: Currency, prices: [String: StoredPrice],
        converted: [CurrencyAmount: ExactDecimal], offline: Bool, warnings: [String] = []
    ) throws -> PortfolioGains {
        var warnings = warnings
        var assets: [AssetGains] = []
        var oldest: Date?
        let byAsset = Dictionary(grouping: activities, by: \.asset)
        for asset in byAsset.keys.sorted() {
            var book = Book(asset: asset, method: method, currency: currency, converted: converted)
            for activity in ActivityLedger.ordered(byAsset[asset] ?? []) { try book.apply(activity) }
            let stored = prices[Valuations.priceKey(asset: asset, currency: currency.code)]
            let quantity = try book.quantity
            let value: ExactDecimal? = if quantity.isZero {
                try ExactDecimal.zero.rescaled(to: currency.minorUnits)
            } else {
                try stored.map { try (quantity * $0.price).rescaled(to: currency.minorUnits) }
            }
            if !quantity.isZero {
                if stored == nil { warnings.append("no \(currency.code) price for \(asset) yet: its value and unrealized gain are unknown") }
                if let updated = stored?.updatedAt { oldest = min(oldest ?? updated, updated) }
            }
            if !book.unconverted.isEmpty {
                warnings.append("the amounts of \(asset) in \(book.unconverted.sorted().joined(separator: ", ")) could not be converted to "
                    + "\(currency.code): its cost basis, gains and fees are unknown")
            }
            let known = book.unconverted.isEmpty
            let costBasis = known ? try book.costBasis : nil
            assets.append(AssetGains(
                asset: asset, quantity: quantity, activities: byAsset[asset]?.count ?? 0, costBasis: try costBasis?.rescaled(to: currency.minorUnits),
                price: stored?.price, value: value,
                realizedGain: known ? try book.realized.rescaled(to: currency.minorUnits) : nil,
                unrealizedGain: try value.flatMap { value in try costBasis.map { try (value - $0).rescaled(to: currency.minorUnits) } },
                fees: known ? try book.fees.rescaled(to: currency.minorUnits) : nil,
                priceTime: quantity.isZero ? nil : stored?.updatedAt))
        }
        func total(_ figure: (AssetGains) -> ExactDecimal?) throws -> ExactDecimal {
            try assets.compactMap(figure).reduce(ExactDecimal.zero.rescaled(to: currency.minorUnits)) { try $0 + $1 }
        }
        let realized = try total(\.realizedGain), unrealized = try total(\.unrealizedGain)
        return PortfolioGains(
            currency: currency.code, method: method, assets: assets, totalCostBasis: try total(\.costBasis), totalValue: try total(\.value),
            totalRealizedGain: realized, totalUnrealizedGain: unrealized, totalGain: try realized + unrealized,
            totalFees: try total(\.fees), pricesAsOf: oldest, offline: offline, warnings: warnings)
    }

    /// What the units of an activity are worth at its price: a buy's, sell's or transfer in's `amount × price`.
    static func gross(_ activity: Trade) throws -> CurrencyAmount? {
        switch activity.kind {
        case .buy, .sell, .transferIn: CurrencyAmount(amount: try activity.amount * activity.price, currency: activity.currency)
        case .fee, .transferOut: nil
        }
    }

    /// One lot: units and what they cost, in the display currency.
    struct Lot {
        var quantity: ExactDecimal
        var cost: ExactDecimal
    }

    /// One asset's lots and running figures while its activities are applied in order.
    struct Book {
        let asset: String
        let method: CostBasisMethod
        let currency: Currency
        let converted: [CurrencyAmount: ExactDecimal]
        /// The lots held from `head` on, oldest first (one pooled lot with average cost).
        var lots: [Lot] = []
        /// The first lot not taken yet.
        var head = 0
        var realized = ExactDecimal.zero
        var fees = ExactDecimal.zero
        /// The currencies of amounts that could not be converted.
        var unconverted: Set<String> = []

        init(asset: String, method: CostBasisMethod, currency: Currency, converted: [CurrencyAmount: ExactDecimal]) {
            self.asset = asset
            self.method = method
            self.currency = currency
            self.converted = converted
        }

        var quantity: ExactDecimal { get throws { try lots[head...].reduce(ExactDecimal.zero) { try $0 + $1.quantity } } }
        var costBasis: ExactDecimal { get throws { try lots[head...].reduce(ExactDecimal.zero) { try $0 + $1.cost } } }

        mutating func apply(_ activity: Trade) throws {
            let fee = try activity.fee.map { try money($0) } ?? .zero
            switch activity.kind {
            case .buy:
                fees = try fees + fee
                try add(Lot(quantity: activity.amount, cost: try money(gross(activity)) + fee))
            case .transferIn:
                try add(Lot(quantity: activity.amount, cost: try money(gross(activity))))
            case .sell:
                let cost = try take(activity)
                fees = try fees + fee
                realized = try realized + (try money(gross(activity)) - fee) - cost
            case .transferOut:
                _ = try take(activity)
            case .fee:
                fees = try fees + fee
                realized = try realized - fee
            }
        }

        /// `amount` in the display currency at its minor units; zero (and the asset's money unknown) when it was not converted.
        mutating func money(_ amount: CurrencyAmount?) throws -> ExactDecimal {
            guard let amount else { return .zero }
            if amount.currency == currency.code { return try amount.amount.rescaled(to: currency.minorUnits) }
            guard let value = converted[amount] else {
                unconverted.insert(amount.currency)
                return .zero
            }
            return try value.rescaled(to: currency.minorUnits)
        }

        private mutating func add(_ lot: Lot) throws {
            switch method {
            case .fifo: lots.append(lot)
            case .average:
                let pool = head < lots.count ? lots[head] : Lot(quantity: .zero, cost: .zero)
                lots = [Lot(quantity: try pool.quantity + lot.quantity, cost: try pool.cost + lot.cost)]
                head = 0
            }
        }

        /// Takes `activity.amount` units from the lots (oldest first; the one pool with average cost) and answers their cost.
        private mutating func take(_ activity: Trade) throws -> ExactDecimal {
            var remaining = activity.amount
            var cost = ExactDecimal.zero
            while !remaining.isZero {
                guard head < lots.count else {
                    throw RPCError.internalError("the \(activity.kind.rawValue) \(activity.id) takes more \(asset) than its earlier activities hold")
                }
                var lot = lots[head]
                if lot.quantity <= remaining {
                    cost = try cost + lot.cost
                    remaining = try remaining - lot.quantity
                    head += 1
                } else {
                    let part = try (lot.cost * remaining).divided(by: lot.quantity, scale: currency.minorUnits)
                    cost = try cost + part
                    lot.cost = try lot.cost - part
                    lot.quantity = try lot.quantity - remaining
                    lots[head] = lot
                    remaining = .zero
                }
            }
            return cost
        }
    }
}
