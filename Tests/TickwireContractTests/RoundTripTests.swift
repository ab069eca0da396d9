import Bus
import Foundation
import Market
import TickwireContract
import Money
import Testing
import WireJSONTesting
import BusContract
import TickwireClients

/// Encodes `value` with the wire's JSON and decodes it back; also checks the wire coders against
/// Foundation's on this message type: Foundation reads the same value from the wire bytes, the wire
/// reads the same value from Foundation's bytes, and random edits of the bytes are accepted or
/// refused alike by both decoders, with the same values. A `WireCodable` type's fast path must also
/// agree with its own `Codable` conformance, byte for byte.
func roundTrip<Value: Codable & Equatable>(_ value: Value) async throws -> (Value, String) {
    let data = try Wire.encode(value)
    #expect(try sameOnWire(Reference.decoder.decode(Value.self, from: data), value))
    #expect(try Wire.decode(Value.self, from: Reference.encoder.encode(value)) == value)
    #expect(try fastPathMatchesCodable(value, seed: UInt64(data.count)), "\(Value.self): its WireCodable members differ from its Codable ones")
    let fuzz = await disagreementsWithFoundation(data, as: Value.self, rounds: 400, seed: UInt64(data.count)) {
        try Wire.decode(Value.self, from: $0)
    }
    #expect(fuzz.disagreements.isEmpty, "\(Value.self): \(fuzz.disagreements.prefix(3).joined(separator: "\n"))")
    return (try Wire.decode(Value.self, from: data), String(decoding: data, as: UTF8.self))
}

func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A date the wire can carry exactly (whole milliseconds).
let time = Wire.parseDate("2026-11-18T11:06:40.123Z") ?? Date(timeIntervalSince1970: 0)

@Suite("Every message round-trips through the wire format")
struct RoundTripTests {
    /// Converter requests and results keep every digit, with money as strings.
    @Test func converterMessages() async throws {
        let convert = ConvertRequest(amount: try dec("1298.990"), from: "USD", to: "EUR", source: "gnb")
        let (decoded, json) = try await roundTrip(convert)
        #expect(decoded == convert)
        #expect(json.contains(#""amount":"1298.990""#))
        let result = ConvertResult(amount: try dec("7.36"), currency: "EUR", rate: try dec("0.736"), rateExact: true, path: ["USD", "EUR"], source: "gnb")
        #expect(try await roundTrip(result).0 == result)
        let total = TotalResult(total: try dec("14.99"), currency: "EUR", source: "gnb", items: [
            .init(amount: try dec("10.00"), currency: "USD", converted: try dec("7.36"), path: ["USD", "EUR"]),
        ])
        #expect(try await roundTrip(total).0 == total)
        let request = TotalRequest(items: [CurrencyAmount(amount: try dec("-0.5"), currency: "SEK")], to: "EUR")
        #expect(try await roundTrip(request).0 == request)
        let rates = RatesResult(base: "CAD", source: "gnb", rates: [.init(currency: "EUR", rate: try dec("0.732"), rateExact: true, path: ["CAD", "EUR"])])
        #expect(try await roundTrip(rates).0 == rates)
        let price = AssetPrice(asset: "BTC", currency: "SEK", price: try dec("653173.35788900"), changePercent24h: try dec("-3.07"), path: ["BTC", "USD", "SEK"], quoteTime: time)
        let (decodedPrice, priceJSON) = try await roundTrip(price)
        #expect(decodedPrice == price)
        #expect(priceJSON.contains(#""quoteTime":"2026-11-18T11:06:40.123Z""#))
    }

    /// Portfolio requests and results round-trip, dates to the millisecond.
    @Test func portfolioMessages() async throws {
        let add = AddTradeRequest(asset: "BTC", amount: try dec("0.25"), price: try dec("60000"), currency: "USD", date: time, requestId: "r-1")
        #expect(try await roundTrip(add).0 == add)
        let trade = Trade(id: "t", asset: "BTC", amount: try dec("0.25"), price: try dec("60000"), currency: "USD", date: time, recordedAt: time)
        #expect(try await roundTrip(trade).0 == trade)
        let valuation = Valuation(
            currency: "USD",
            holdings: [Holding(asset: "BTC", amount: try dec("0.25"), trades: 1, price: try dec("70000"), value: try dec("17500.00"),
                               cost: try dec("15000.00"), gain: try dec("2500.00"), priceTime: time)],
            totalValue: try dec("17500.00"), totalCost: try dec("15000.00"), totalGain: try dec("2500.00"),
            pricesAsOf: time, priceAgeSeconds: 3, offline: false, warnings: ["w"])
        #expect(try await roundTrip(valuation).0 == valuation)
        let groups = WalletGroups(fiat: [], crypto: [WalletEntry(id: "w", name: "BTC Wallet", balance: try dec("2.26908585"), isDefault: true,
                                                                 symbol: "BTC", assetName: "Bitcoin", iconLight: "l", iconDark: "d", precision: 8)], commodity: [])
        #expect(try await roundTrip(groups).0 == groups)
        let detail = ProductDetail(sku: "T2006", currency: "EUR", total: try dec("14.99"), transactions: [])
        #expect(try await roundTrip(detail).0 == detail)
        for value in [PortfolioChange(reason: "trade.added", subject: "t")] { #expect(try await roundTrip(value).0 == value) }
        #expect(try await roundTrip(ProductRequest(sku: "T2006", currency: nil)).0 == ProductRequest(sku: "T2006"))
        #expect(try await roundTrip(WatchlistRequest(asset: "ETH")).0 == WatchlistRequest(asset: "ETH"))
        #expect(try await roundTrip(HoldingsRequest(currency: "SEK")).0 == HoldingsRequest(currency: "SEK"))
        #expect(try await roundTrip(RemoveTradeRequest(id: "t")).0 == RemoveTradeRequest(id: "t"))
        #expect(try await roundTrip(ProductSummary(sku: "T2006", transactions: 2)).0 == ProductSummary(sku: "T2006", transactions: 2))
    }

    /// Stream payloads of the fetcher round-trip inside an envelope.
    @Test func fetcherPayloads() async throws {
        let quote = Quote(source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: try dec("5633.98"),
                          high: try dec("5750.00"), ask: try dec("5632.24"), bid: try dec("5520.01"), time: time)
        let envelope = Envelope(type: "quote", seq: 3, time: time, source: "bitso", data: quote)
        #expect(try await roundTrip(envelope).0 == envelope)
        let full = Quote(
            source: "coingecko", market: MarketPair(base: "ETH", quote: "USD"), last: try dec("3021.55"),
            open: try dec("2990.1"), high: try dec("3100"), low: try dec("2950.25"), volume: try dec("1234.5678"),
            quoteVolume: try dec("3730000.12"), vwap: try dec("3020.00"), ask: try dec("3021.60"), bid: try dec("3021.50"),
            change24h: try dec("31.45"), changePercent24h: try dec("1.05"), marketCap: try dec("363000000000"),
            marketCapRank: 2, circulatingSupply: try dec("120200000.5"), totalSupply: try dec("120200000.5"),
            maxSupply: try dec("0"), allTimeHigh: try dec("4878.26"), time: time)
        #expect(try await roundTrip(full).0 == full)
        #expect(try await roundTrip(Envelope(type: "quote", seq: .max, time: time, source: "coingecko", data: full)).0.data == full)
        let price = AssetPrice(asset: "BTC", currency: "SEK", price: try dec("653173.35788900"), changePercent24h: nil, path: ["BTC", "USD", "SEK"], quoteTime: nil)
        #expect(try await roundTrip(Envelope(type: "price", seq: 1, time: time, source: "converter", data: price)).0.data == price)
        let gone = Envelope<AssetPrice?>(type: "price", seq: 2, time: time, source: "converter", data: nil)
        #expect(try await roundTrip(gone).0 == gone)
        let status = FeedStatus(feed: "bitso", state: .error, message: "HTTP 500", lastSuccess: time, lastAttempt: time)
        #expect(try await roundTrip(status).0 == status)
        #expect(try await roundTrip(HistoryRequest(asset: "BTC", currency: "SEK", days: 30)).0 == HistoryRequest(asset: "BTC", currency: "SEK", days: 30))
        #expect(try await roundTrip(RefreshRequest(feed: "bitso")).0 == RefreshRequest(feed: "bitso"))
        #expect(try await roundTrip(CoinRequest(coin: "DOT")).1 == #"{"coin":"DOT"}"#)
        let change = CoinsChange(coin: KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot"), changed: true,
                                 coins: [KnownCoin(id: "bitcoin"), KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot")])
        #expect(try await roundTrip(change).0 == change)
        #expect(try await roundTrip(KnownCoinsRequest(query: "pol", limit: 5)).0 == KnownCoinsRequest(query: "pol", limit: 5))
        #expect(try await roundTrip(KnownCoinsRequest()).1 == "{}")
        #expect(try await roundTrip(GNBTransaction(sku: "T2006", amount: try dec("10.00"), currency: "USD")).0.amount.description == "10.00")
    }

    /// Order books, trades, candles and the `candles` method's messages round-trip with every digit, and a message on
    /// `book.`, `limits.`, `trade.` or `candle.` is read as its stream's update.
    @Test func marketDataPayloads() async throws {
        let market = MarketPair(base: "BTC", quote: "MXN")
        let book = BookDepth(source: "bitso-ws", market: market, sequence: 27_214_318,
                             bids: [BookLevel(price: try dec("1219480.00"), size: try dec("0.01920000"))],
                             asks: [BookLevel(price: try dec("1219800.00"), size: try dec("0.00410000"))], time: time)
        let (decodedBook, bookJSON) = try await roundTrip(Envelope(type: "book", seq: 4, time: time, source: "bitso-ws", data: book))
        #expect(decodedBook.data == book)
        #expect(bookJSON.contains(#""bids":[{"price":"1219480.00","size":"0.01920000"}]"#))
        let trade = MarketTrade(source: "kraken-ws", market: market, id: "85761234", price: try dec("1219800.00"), size: try dec("0.0021"),
                                side: .sell, time: time)
        #expect(try await roundTrip(trade).0 == trade)
        let sideless = MarketTrade(source: "bitso-ws", market: market, id: "1", price: try dec("1"), size: try dec("1"), time: time)
        #expect(try await roundTrip(sideless).1.contains("side") == false, "no side: left out, never null")
        let candle = Candle(source: "bitso-ws", market: market, interval: .fiveMinutes, start: time, open: try dec("1.0"), high: try dec("2.00"),
                            low: try dec("0.5"), close: try dec("1.5"), volume: try dec("0"), count: 3)
        let (decodedCandle, candleJSON) = try await roundTrip(candle)
        #expect(decodedCandle == candle && candleJSON.contains(#""interval":"5m""#) && candleJSON.contains(#""high":"2.00""#))
        let series = CandleSeries(source: "bitso-ws", market: market, interval: .fiveMinutes, candles: [candle])
        #expect(try await roundTrip(series).0 == series)
        let request = CandlesRequest(market: "BTC-MXN", interval: .oneDay, source: "bitso-ws", start: time, end: time)
        #expect(try await roundTrip(request).0 == request)
        #expect(try await roundTrip(CandlesRequest(market: "BTC-MXN", interval: .oneMinute)).1 == #"{"market":"BTC-MXN","interval":"1m"}"#)

        let limits = BookInfo(book: "btc_mxn", market: market, minimumAmount: try dec("0.003"), maximumAmount: try dec("1000"),
                              minimumPrice: try dec("100"), maximumPrice: try dec("1000000"), minimumValue: try dec("25"), maximumValue: try dec("1000000"))
        func update<Payload: Codable & Sendable>(_ topic: StreamTopic<Payload>, _ data: Payload) throws -> FetcherUpdate? {
            let body = try Wire.encode(Envelope(type: String(topic.topic.kind), seq: 1, time: time, source: "bitso-ws", data: data))
            return try FetcherUpdate(message: BusMessage(topic: topic.rawValue, body: body))
        }
        #expect(try update(Topics.book(feed: "bitso-ws", market: market), book) == .depth(book))
        #expect(try update(Topics.limits(feed: "bitso", book: "btc_mxn"), limits) == .book(limits))
        #expect(try update(Topics.trade(feed: "kraken-ws", market: market), trade) == .trade(trade))
        #expect(try update(Topics.candle(interval: .fiveMinutes, feed: "bitso-ws", market: market), candle) == .candle(candle))
        #expect(FetcherUpdate.depth(book).kind == .depth && FetcherUpdate.book(limits).kind == .book)
        #expect(FetcherUpdate.Kind.depth.prefix == "book." && FetcherUpdate.Kind.book.prefix == "limits.", "each kind follows its stream")
        #expect(Set(FetcherUpdate.Kind.allCases.map(\.rawValue)) == Set(RatesFetcherAPI.streams.map(\.kind)).subtracting(["heartbeat"]))
    }

    /// Money on the wire is a string: a JSON number for an amount is refused with a clear reason.
    @Test func moneyMustBeAString() async throws {
        let number = Data(#"{"amount":12.5,"from":"EUR","to":"USD"}"#.utf8)
        let error = #expect(throws: DecodingError.self) { try Wire.decode(ConvertRequest.self, from: number) }
        #expect(error.map { describe($0) }?.contains("decimal string") == true)
        #expect(try Wire.decode(ConvertRequest.self, from: Data(#"{"amount":"12.5","from":"EUR","to":"USD"}"#.utf8)).amount == (try dec("12.5")))
    }

    /// Topic names are built in one place and follow the grammar.
    @Test func topicNames() async throws {
        #expect(try Topics.quote(feed: "bitso", market: MarketPair(base: "btc", quote: "mxn")).rawValue == "quote.bitso.BTC-MXN")
        #expect(try Topics.rate(source: "ecb", from: "EUR", to: "USD").rawValue == "rate.ecb.EUR-USD")
        #expect(try Topics.price(asset: "BTC", currency: "SEK").rawValue == "price.BTC.SEK")
        #expect(try Topics.limits(feed: "bitso", book: "btc_mxn").rawValue == "limits.bitso.btc_mxn")
        let market = MarketPair(base: "btc", quote: "mxn")
        #expect(try Topics.book(feed: "bitso-ws", market: market).rawValue == "book.bitso-ws.BTC-MXN")
        #expect(try Topics.trade(feed: "kraken-ws", market: market).rawValue == "trade.kraken-ws.BTC-MXN")
        #expect(try Topics.candle(interval: .oneHour, feed: "bitso-ws", market: market).rawValue == "candle.1h.bitso-ws.BTC-MXN")
        #expect(try Topics.status(feed: "gnb").rawValue == "status.gnb")
        #expect(Topics.portfolioChanged.rawValue == "portfolio.changed")
        #expect(throws: BusError.self) { try Topics.coin(feed: "coingecko", symbol: "BAD SYMBOL") }
    }
}
