import BusContract
import Market
import TickwireContract

/// Where `performance` gets an asset's past prices: rates-fetcher's `history` in the display currency, else its
/// history in USD converted point by point at each day's rate by the converter's `convert.series`.
public enum PriceHistorySource {
    /// A ``PortfolioState/History`` over rates-fetcher's `history` and the converter's `convert.series`.
    public static func make(
        history: @escaping @Sendable (HistoryRequest) async throws -> PriceHistory,
        convertSeries: @escaping @Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult
    ) -> PortfolioState.History {
        { asset, currency, days in
            do {
                return try await history(HistoryRequest(asset: asset, currency: currency, days: days))
            } catch {
                guard currency != "USD" else { throw error }
                let usd = try await history(HistoryRequest(asset: asset, currency: "USD", days: days))
                return try await convertSeries(ConvertSeriesRequest(history: usd, to: currency)).history
            }
        }
    }
}
