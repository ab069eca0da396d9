import BusContract
import Foundation
import Market
import TickwireContract

extension CandleStore {
    /// What the `candles` method answers to `request`: an unknown market or feed is ``RPCError/notFound(_:)``, a market
    /// that is not `BASE-QUOTE`, a span that ends before it starts or holds more than ``maxCandles`` is
    /// ``RPCError/invalidParams(_:)``.
    public func answer(_ request: CandlesRequest) async throws -> CandleSeries {
        guard let market = MarketPair(symbol: request.market) else {
            throw RPCError.invalidParams("market \"\(request.market)\" is not BASE-QUOTE, e.g. BTC-MXN")
        }
        if let start = request.start, let end = request.end, end < start {
            throw RPCError.invalidParams("the span ends (\(end.ISO8601Format())) before it starts (\(start.ISO8601Format()))")
        }
        let series: CandleSeries?
        do {
            series = try await candles(CandleQuery(
                market: market, interval: request.interval, source: request.source, start: request.start, end: request.end))
        } catch let error as CandleStoreError {
            throw RPCError.invalidParams(error.description)
        }
        guard let series else {
            let feed = request.source.map { " from \($0)" } ?? ""
            throw RPCError.notFound("no closed \(request.interval.rawValue) candle of \(market)\(feed) is stored: none has closed yet, or the hub has seen no trade or quote of it")
        }
        return series
    }
}
