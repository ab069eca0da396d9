import BusContract
import TickwireContract
import Money

/// The converter's answers, as pure functions of a ``RateBook``.
public enum Conversions {
    /// Converts one amount; the result is rounded half-even to the target's minor units.
    public static func convert(_ request: ConvertRequest, in book: inout RateBook) throws -> ConvertResult {
        let target = try Currency(code: request.to)
        let from = try Currency(code: request.from).code
        let source = request.source ?? book.defaultSource(for: [from, target.code])
        let rate = try book.graph(for: source).rate(from: from, to: target.code)
        let converted = try rate.convert(request.amount, scale: target.minorUnits)
        let decimal = rate.decimal(scale: 18)
        return ConvertResult(
            amount: converted, currency: target.code, rate: decimal,
            rateExact: isExact(decimal, rate), path: rate.path, source: source)
    }

    /// Adds up amounts in one currency by the GNB rule: each item is converted with the
    /// exact derived rate and rounded half-even to the target's minor units; the total
    /// is the sum of the rounded items.
    public static func total(_ request: TotalRequest, in book: inout RateBook) throws -> TotalResult {
        let target = try Currency(code: request.to)
        let codes = try request.items.map { try Currency(code: $0.currency).code }
        let source = request.source ?? book.defaultSource(for: codes + [target.code])
        var graph: RateGraph?
        var total = ExactDecimal.zero
        var items: [TotalResult.Item] = []
        items.reserveCapacity(request.items.count)
        var rates: [String: DerivedRate] = [:]
        for (item, code) in zip(request.items, codes) {
            let rate: DerivedRate
            if let known = rates[code] {
                rate = known
            } else {
                let sourceGraph = try graph ?? book.graph(for: source)
                graph = sourceGraph
                rate = try sourceGraph.rate(from: code, to: target.code)
                rates[code] = rate
            }
            let converted = try rate.convert(item.amount, scale: target.minorUnits)
            total = try total + converted
            items.append(.init(amount: item.amount, currency: code, converted: converted, path: rate.path))
        }
        return TotalResult(total: total.rescaledOrSame(target.minorUnits), currency: target.code, source: source, items: items)
    }

    /// Every currency reachable from `base`, with its derived rate and path.
    public static func rates(_ request: RatesRequest, in book: inout RateBook) throws -> RatesResult {
        let base = try Currency(code: request.base).code
        let source = request.source ?? book.defaultSource(for: [base])
        let derived = try book.graph(for: source).rates(from: base)
        return RatesResult(base: base, source: source, rates: derived.map { rate in
            let decimal = rate.decimal(scale: 18)
            return .init(currency: rate.to, rate: decimal, rateExact: isExact(decimal, rate), path: rate.path)
        })
    }

    /// Whether `decimal` is exactly `rate`'s fraction.
    private static func isExact(_ decimal: ExactDecimal, _ rate: DerivedRate) -> Bool {
        (try? decimal * rate.denominator) == rate.numerator
    }
}

extension ExactDecimal {
    /// This amount written with `scale` places (0 as "0.00"), or unchanged where that cannot be.
    func rescaledOrSame(_ scale: Int) -> ExactDecimal {
        (try? rescaled(to: scale)) ?? self
    }
}
