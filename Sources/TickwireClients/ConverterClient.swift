import Bus
import TickwireContract
import TickwireStack
import BusContract

/// The converter: exact conversion over derived rates, and asset prices in display currencies.
public struct ConverterClient: Sendable {
    /// `convert`: one amount into another currency, rounded half-even.
    public var convert: @Sendable (ConvertRequest) async throws -> ConvertResult
    /// `total`: many amounts added up in one currency by the GNB rule.
    public var total: @Sendable (TotalRequest) async throws -> TotalResult
    /// `rates`: every currency reachable from a base.
    public var rates: @Sendable (RatesRequest) async throws -> RatesResult
    /// `sources`: the rate sources held.
    public var sources: @Sendable () async throws -> [RateSourceInfo]
    /// `convert.series`: a price history converted at each day's rate.
    public var convertSeries: @Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult
    /// `health`.
    public var health: @Sendable () async throws -> Health
    /// `price.<ASSET>.<FIAT>`: every asset's price in every display currency, as it changes.
    public var prices: @Sendable () -> StreamEvents<AssetPrice>

    /// A client from its closures.
    public init(
        convert: @escaping @Sendable (ConvertRequest) async throws -> ConvertResult,
        total: @escaping @Sendable (TotalRequest) async throws -> TotalResult,
        rates: @escaping @Sendable (RatesRequest) async throws -> RatesResult,
        sources: @escaping @Sendable () async throws -> [RateSourceInfo],
        convertSeries: @escaping @Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult,
        health: @escaping @Sendable () async throws -> Health,
        prices: @escaping @Sendable () -> StreamEvents<AssetPrice>
    ) {
        self.convert = convert
        self.total = total
        self.rates = rates
        self.sources = sources
        self.convertSeries = convertSeries
        self.health = health
        self.prices = prices
    }
}

extension ConverterClient {
    /// The converter at `rep` (JSON-RPC) and `pub` (prices), by default where the stack puts it
    /// (`TICKWIRE_CONVERTER_REP`, `TICKWIRE_CONVERTER_PUB`).
    public static func live(
        _ connection: LiveConnection,
        rep: String = DefaultEndpoint.converterRep.resolve(nil), pub: String = DefaultEndpoint.converterPub.resolve(nil)
    ) throws -> Self {
        let rpc = try connection.rpc(rep, service: "converter")
        let prices = try connection.stream("converter", pub: pub, rep: rep, prefixes: [ConverterAPI.prices.prefix]) {
            try $0.decode(ConverterAPI.prices)?.data
        }
        return .live(rpc, prices: prices)
    }

    /// The converter's methods through `rpc`, and `prices` for its stream.
    public static func live(_ rpc: some RPCCaller, prices: StreamEvents<AssetPrice> = .failing("no price stream")) -> Self {
        Self(
            convert: { try await rpc.call(ConverterAPI.convert, $0) },
            total: { try await rpc.call(ConverterAPI.total, $0) },
            rates: { try await rpc.call(ConverterAPI.rates, $0) },
            sources: { try await rpc.call(ConverterAPI.sources) },
            convertSeries: { try await rpc.call(ConverterAPI.convertSeries, $0) },
            health: { try await rpc.call(StandardAPI.health) },
            prices: { prices })
    }

    /// Every closure throws, naming itself; the stream says it is unavailable.
    public static let failing = Self(
        convert: unimplemented("ConverterClient.convert"),
        total: unimplemented("ConverterClient.total"),
        rates: unimplemented("ConverterClient.rates"),
        sources: unimplemented("ConverterClient.sources"),
        convertSeries: unimplemented("ConverterClient.convertSeries"),
        health: unimplemented("ConverterClient.health"),
        prices: { .failing("ConverterClient.prices is not implemented here") })
}
