import Foundation

/// What a page shows before its data has come: the services it waits for, and for what. The dashboard
/// answers it at once (rather than asking a service that is not there yet) and fills the page in live
/// when the data arrives.
public struct WaitingView: Codable, Sendable, Equatable {
    /// Which screen this is (`waiting`): what a client reads to know the view's shape.
    public var screen = "waiting"

    /// One thing a page waits for.
    public struct Wait: Codable, Sendable, Equatable {
        /// The service it comes from, e.g. "converter".
        public var service: String
        /// What it is, e.g. "prices in USD".
        public var what: String
        /// The sentence for people: "Waiting for prices in USD from the converter…".
        public var text: String
        /// The state of the service's stream when it is not synchronized, e.g. "converter: waiting for a snapshot".
        public var state: String?

        /// `what`, from `service`, whose stream is in `state` (nil when it is up).
        public init(service: String, what: String, state: String? = nil) {
            self.service = service
            self.what = what
            self.state = state.map { "\(service): \($0)" }
            let from = ["converter", "portfolio"].contains(service) ? "the \(service)" : service
            text = "Waiting for \(what) from \(from)…"
        }
    }

    /// The page's title, e.g. "Coins".
    public var title: String
    /// What it waits for, in the order the page needs it.
    public var waits: [Wait]
    /// The reader's locale.
    public var locale: String
    /// The display currency.
    public var currency: String?
    /// More messages, e.g. the state of a stream that is down.
    public var notices: [String]

    /// The waiting view of a page titled `title`.
    public static func make(title: String, waits: [Wait], context: ViewContext, notices: [String] = []) -> WaitingView {
        WaitingView(title: title, waits: waits, locale: context.locale, currency: context.currency, notices: notices)
    }
}

/// What the presenter has at hand for the pages: which upstream streams are up and which of their data
/// has arrived. ``waits(screen:parameters:currency:)`` tells from it what a page still waits for.
public struct Availability: Sendable, Equatable {
    /// Each upstream's stream state, as `health` reports it ("ok" when synchronized), by name: `rates-fetcher`,
    /// `converter` and `portfolio`.
    public var streams: [String: String]
    /// Whether the masterdata’s assets have arrived.
    public var assets: Bool
    /// Whether the masterdata’s wallets have arrived.
    public var wallets: Bool
    /// The Bitso books known, e.g. `btc_mxn`.
    public var books: Set<String>
    /// The Bitso books with a ticker.
    public var tickers: Set<String>
    /// The display currencies the converter has published prices in.
    public var priceCurrencies: Set<String>

    /// What the presenter has.
    public init(
        streams: [String: String] = [:], assets: Bool = false, wallets: Bool = false, books: Set<String> = [],
        tickers: Set<String> = [], priceCurrencies: Set<String> = []
    ) {
        self.streams = streams
        self.assets = assets
        self.wallets = wallets
        self.books = books
        self.tickers = tickers
        self.priceCurrencies = priceCurrencies
    }

    /// What the page of `screen` (with `parameters`, in `currency`) waits for: nothing when it can be built
    /// now. Only data the page cannot be built without counts; a service the page asks (the portfolio) counts
    /// while its stream is not synchronized, as asking it would only time out.
    public func waits(screen: String, parameters: [String: String], currency: String) -> [WaitingView.Wait] {
        var waits: [WaitingView.Wait] = []
        func need(_ condition: Bool, _ service: String, _ what: String) {
            guard !condition else { return }
            waits.append(WaitingView.Wait(service: service, what: what, state: streams[service].flatMap { $0 == "ok" ? nil : $0 }))
        }
        func up(_ service: String) -> Bool { streams[service] == "ok" }
        let prices = "prices in \(currency.uppercased())"
        switch screen {
        case "assets":
            need(assets, "rates-fetcher", "the masterdata’s assets")
        case "wallets":
            need(wallets, "rates-fetcher", "the masterdata’s wallets")
            need(up("portfolio"), "portfolio", "the wallets")
        case "coins":
            need(priceCurrencies.contains(currency.uppercased()), "converter", prices)
            need(up("portfolio"), "portfolio", "the watch list")
        case "coin":
            need(priceCurrencies.contains(currency.uppercased()), "converter", prices)
            need(up("rates-fetcher"), "rates-fetcher", "the 30-day history")
            need(up("portfolio"), "portfolio", "your holding")
        case "portfolio":
            need(up("portfolio"), "portfolio", "your trades and holdings")
        case "books":
            need(!books.isEmpty, "rates-fetcher", "Bitso’s books")
        case "book":
            let book = (parameters["book"] ?? "").lowercased()
            need(!books.isEmpty && (!books.contains(book) || tickers.contains(book)),
                 "rates-fetcher", "Bitso’s ticker of \(book)")
        case "products", "product":
            need(up("portfolio"), "portfolio", "the products’ transactions")
        default:
            break
        }
        return waits
    }
}
