import BusContract
import Market
import Money

/// One value of rates-fetcher's streams, whichever stream it came on.
public enum FetcherUpdate: Sendable, Equatable {
    case quote(Quote)
    case rate(ExchangeRate)
    case book(BookInfo)
    case coin(CoinInfo)
    case status(FeedStatus)
    case assets([Asset])
    case wallets([Wallet])
    case transactions([GNBTransaction])

    /// rates-fetcher's streams, to choose which to follow.
    public enum Kind: String, CaseIterable, Sendable {
        case quote, rate, book, coin, status, assets, wallets, transactions

        /// The subscription prefix of the stream, e.g. `quote.`.
        public var prefix: String { rawValue + "." }
    }

    /// The stream it came on.
    public var kind: Kind {
        switch self {
        case .quote: .quote
        case .rate: .rate
        case .book: .book
        case .coin: .coin
        case .status: .status
        case .assets: .assets
        case .wallets: .wallets
        case .transactions: .transactions
        }
    }
}
