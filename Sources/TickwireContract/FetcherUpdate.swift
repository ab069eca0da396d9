import BusContract
import Market
import Money

/// One value of rates-fetcher's streams, whichever stream it came on.
public enum FetcherUpdate: Sendable, Equatable {
    case quote(Quote)
    case rate(ExchangeRate)
    /// An exchange book's order limits (`limits.<feed>.<book>`).
    case book(BookInfo)
    /// The top levels of a market's order book (`book.<feed>.<BASE>-<QUOTE>`).
    case depth(BookDepth)
    /// A market's trade (`trade.<feed>.<BASE>-<QUOTE>`).
    case trade(MarketTrade)
    /// A market's closed candle (`candle.<interval>.<feed>.<BASE>-<QUOTE>`).
    case candle(Candle)
    case coin(CoinInfo)
    case status(FeedStatus)
    case assets([Asset])
    case wallets([Wallet])
    case transactions([GNBTransaction])

    /// rates-fetcher's streams, to choose which to follow: one a case of ``FetcherUpdate``, its raw value the kind
    /// of the stream's topics (``book`` is the limits stream, `limits.`; ``depth`` the order books, `book.`).
    public enum Kind: String, CaseIterable, Sendable {
        case quote, rate
        /// Exchange books' order limits: `limits.`.
        case book = "limits"
        /// Order book depth: `book.`.
        case depth = "book"
        case trade, candle, coin, status, assets, wallets, transactions

        /// The subscription prefix of the stream, e.g. `quote.`.
        public var prefix: String { rawValue + "." }
    }

    /// The stream it came on.
    public var kind: Kind {
        switch self {
        case .quote: .quote
        case .rate: .rate
        case .book: .book
        case .depth: .depth
        case .trade: .trade
        case .candle: .candle
        case .coin: .coin
        case .status: .status
        case .assets: .assets
        case .wallets: .wallets
        case .transactions: .transactions
        }
    }
}
