/// Any screen's view, as the presenter's `view` method answers and `GET /api/views/<screen>` serves it:
/// the view itself on the wire, told apart by its `screen` member.
public enum ScreenView: Codable, Sendable, Equatable {
    case assets(AssetsView)
    case wallets(WalletsView)
    case coins(CoinsView)
    case coin(CoinView)
    case portfolio(PortfolioView)
    case books(BooksView)
    case book(BookView)
    case products(ProductsView)
    case product(ProductView)
    case error(ErrorView)

    /// The screens there are, in the dashboard's order (`error` is what a failed one shows instead).
    public static let screens = ["assets", "wallets", "coins", "coin", "portfolio", "books", "book", "products", "product"]

    private enum Keys: String, CodingKey { case screen }

    public init(from decoder: any Decoder) throws {
        let screen = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .screen)
        switch screen {
        case "assets": self = .assets(try AssetsView(from: decoder))
        case "wallets": self = .wallets(try WalletsView(from: decoder))
        case "coins": self = .coins(try CoinsView(from: decoder))
        case "coin": self = .coin(try CoinView(from: decoder))
        case "portfolio": self = .portfolio(try PortfolioView(from: decoder))
        case "books": self = .books(try BooksView(from: decoder))
        case "book": self = .book(try BookView(from: decoder))
        case "products": self = .products(try ProductsView(from: decoder))
        case "product": self = .product(try ProductView(from: decoder))
        case "error": self = .error(try ErrorView(from: decoder))
        default:
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath + [Keys.screen], debugDescription: "unknown screen \"\(screen)\""))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .assets(let view): try view.encode(to: encoder)
        case .wallets(let view): try view.encode(to: encoder)
        case .coins(let view): try view.encode(to: encoder)
        case .coin(let view): try view.encode(to: encoder)
        case .portfolio(let view): try view.encode(to: encoder)
        case .books(let view): try view.encode(to: encoder)
        case .book(let view): try view.encode(to: encoder)
        case .products(let view): try view.encode(to: encoder)
        case .product(let view): try view.encode(to: encoder)
        case .error(let view): try view.encode(to: encoder)
        }
    }

    /// The `screen` member: which screen this is.
    public var screen: String {
        switch self {
        case .assets(let view): view.screen
        case .wallets(let view): view.screen
        case .coins(let view): view.screen
        case .coin(let view): view.screen
        case .portfolio(let view): view.screen
        case .books(let view): view.screen
        case .book(let view): view.screen
        case .products(let view): view.screen
        case .product(let view): view.screen
        case .error(let view): view.screen
        }
    }
}
