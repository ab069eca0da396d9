import Money
import TickwireContract

/// What the presenter knows of one coin for the coin screens: who it is, its price in the display
/// currency (nil when none has arrived) and whether the user watches it.
public struct CoinSnapshot: Sendable, Equatable {
    /// Ticker symbol, e.g. "BTC".
    public var symbol: String
    /// Display name, e.g. "Bitcoin".
    public var name: String
    /// Logo URL, if known.
    public var image: String?
    /// The converter's price in the display currency, or nil.
    public var price: AssetPrice?
    /// Whether the coin is on the user's watch list.
    public var watched: Bool
    /// The 24 h change in percent to show when the converter's price carries none: another source's, or
    /// computed from the price history.
    public var change24h: ExactDecimal?

    /// A coin snapshot.
    public init(symbol: String, name: String, image: String? = nil, price: AssetPrice?, watched: Bool, change24h: ExactDecimal? = nil) {
        self.symbol = symbol
        self.name = name
        self.image = image
        self.price = price
        self.watched = watched
        self.change24h = change24h
    }
}
