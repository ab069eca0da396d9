import BusContract
import Logging
import Money
import TickwireContract

/// The one owner of the converter's rate book.
public actor ConverterState {
    private var book = RateBook()
    private var dirty = false
    private let logger: Logger
    /// rates-fetcher's state as `health` reports it.
    public private(set) var upstream = "waiting for rates-fetcher's snapshot"

    /// An empty book; `logger` hears of unusable rates.
    public init(logger: Logger) { self.logger = logger }

    /// Applies the fetcher's events until the stream ends. The loop runs on the actor, so a burst
    /// of waiting events costs no executor hop each.
    public func follow(_ events: some AsyncSequence<StreamEvent<FetcherUpdate>, Never>) async {
        for await event in events { apply(event) }
    }

    /// Applies one event of rates-fetcher's rates and quotes.
    public func apply(_ event: StreamEvent<FetcherUpdate>) {
        switch event {
        case .snapshot(let updates):
            let failures = book.reset(with: updates)
            if failures > 0 { logger.warning("snapshot had unusable rates", metadata: ["count": "\(failures)"]) }
            upstream = "ok"
            dirty = true
        case .update(let update):
            do {
                if try book.apply(update) != nil { dirty = true }
            } catch {
                logger.warning("dropped an unusable rate", metadata: ["topic": "\(update.topic)", "error": "\(error)"])
            }
            upstream = "ok"
        case .unavailable(let reason):
            upstream = reason
        }
    }
    public func convert(_ request: ConvertRequest) throws -> ConvertResult { try Conversions.convert(request, in: &book) }
    public func total(_ request: TotalRequest) throws -> TotalResult { try Conversions.total(request, in: &book) }
    public func rates(_ request: RatesRequest) throws -> RatesResult { try Conversions.rates(request, in: &book) }

    public func sources() -> [RateSourceInfo] {
        book.sources.map { source in
            RateSourceInfo(source: source, rates: book.count(of: source), currencies: (try? book.graph(for: source).currencies) ?? [])
        }
    }

    /// Every asset's price in each of `currencies` if anything changed since the last call, else none.
    public func changedPrices(in currencies: [String]) -> [AssetPrice] {
        guard dirty else { return [] }
        dirty = false
        return Pricing.prices(in: currencies, book: &book)
    }
}
