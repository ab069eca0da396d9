import Foundation
import Market
import Money

/// Frankfurter's and fixer's JSON: `{"base", "date", "rates": {"SEK": 9.3295, ...}}`, numbers as JSON numbers;
/// fixer adds `"success"` and, on error, `{"success": false, "error": {"code", "type", "info"}}`.
enum FiatWire {
    private struct Latest: Decodable {
        let base: String
        let date: String
        let rates: [String: ExactDecimal]
    }

    private struct FixerStatus: Decodable {
        let success: Bool
        let error: FixerError?
    }

    private struct FixerError: Decodable {
        let code: Int
        let type: String?
        let info: String?
    }

    /// Frankfurter's rates, published by the ECB; the answer must be for `base`.
    static func frankfurter(from data: Data, origin: String, base: String) throws(FeedError) -> FiatRates {
        try rates(Wire.decode(Latest.self, from: data, origin: origin), source: "ecb", base: base, origin: origin, data)
    }

    /// fixer's rates; `success: false` is fixer's error.
    static func fixer(from data: Data, origin: String) throws(FeedError) -> FiatRates {
        if let error = fixerError(in: data, origin: origin) { throw error }
        let latest = try Wire.decode(Latest.self, from: data, origin: origin)
        return try rates(latest, source: "fixer", base: latest.base, origin: origin, data)
    }

    /// fixer's error body, if `data` is one.
    static func fixerError(in data: Data, origin: String) -> FeedError? {
        guard let status = try? Wire.decode(FixerStatus.self, from: data, origin: origin), !status.success else {
            return nil
        }
        guard let error = status.error else {
            return Wire.malformed(origin, reason: "success is false but there is no error", data)
        }
        return .api(
            source: "fixer", code: String(error.code),
            message: error.info ?? error.type ?? "no detail given", url: origin
        )
    }

    private static func rates(
        _ latest: Latest, source: String, base: String, origin: String, _ data: Data
    ) throws(FeedError) -> FiatRates {
        guard latest.base == base else {
            throw Wire.malformed(origin, reason: "asked for rates from \(base), got \(latest.base)", data)
        }
        guard !latest.rates.isEmpty else { throw Wire.malformed(origin, reason: "no rates", data) }
        let rates = latest.rates
            .filter { $0.key != base }
            .map { ExchangeRate(from: base, to: $0.key, rate: $0.value) }
            .sorted { $0.to < $1.to }
        return FiatRates(source: source, base: base, date: latest.date, rates: rates)
    }
}
