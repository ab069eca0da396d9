import PresenterViews
import Foundation

/// Where a page is shown: the reader's locale and currency, the path and query it was asked for, and the
/// values a page generates (the request id of its forms, the current moment).
public struct PageContext: Sendable, Equatable {
    /// One query item, already percent-decoded.
    public struct QueryItem: Sendable, Equatable {
        /// Its name, e.g. "locale".
        public var name: String
        /// Its value, e.g. "de_AT".
        public var value: String

        /// A query item.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The ICU locale identifier, e.g. "de_AT".
    public var locale: String
    /// The display currency, e.g. "USD".
    public var currency: String
    /// The path asked for, e.g. "/coins/BTC".
    public var path: String
    /// The query items asked with, in order.
    public var query: [QueryItem]
    /// The idempotency key for the page's forms: a retried submission carries the same id.
    public var requestId: String
    /// The current moment (the default date of the trade form).
    public var now: Date
    /// The reader's CSRF token, which every form that changes state carries in its `csrf` field.
    public var csrfToken: String

    /// A page context; `requestId` defaults to a fresh UUID.
    public init(locale: String, currency: String, path: String, query: [QueryItem] = [], now: Date, requestId: String = UUID().uuidString, csrfToken: String = "") {
        self.locale = locale
        self.csrfToken = csrfToken
        self.currency = currency
        self.path = path
        self.query = query
        self.now = now
        self.requestId = requestId
    }

    /// The page context for a view built with `context`.
    public init(_ context: ViewContext, path: String, query: [QueryItem] = [], requestId: String = UUID().uuidString, csrfToken: String = "") {
        self.init(locale: context.locale, currency: context.currency, path: path, query: query, now: context.now, requestId: requestId, csrfToken: csrfToken)
    }

    /// The items of a raw query string ("a=1&b=x%20y"), percent-decoded, `+` read as a space.
    public static func parseQuery(_ raw: String) -> [QueryItem] {
        raw.split(separator: "&").compactMap { part -> QueryItem? in
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = pair.first, !rawName.isEmpty else { return nil }
            let decode = { (text: Substring) in
                let spaced = String(text.replacing("+", with: " "))
                return spaced.removingPercentEncoding ?? spaced
            }
            return QueryItem(name: decode(rawName), value: pair.count > 1 ? decode(pair[1]) : "")
        }
    }

    /// This page with query item `name` set to `value`, every other item kept: a switch link.
    func href(setting name: String, to value: String) -> String {
        href(setting: [QueryItem(name: name, value: value)])
    }

    /// This page with each of `settings` set (in place of the item of its name, else added), every other item kept:
    /// a link that chooses several things at once, e.g. an order book's feed and market.
    func href(setting settings: [QueryItem]) -> String {
        var items: [QueryItem] = []
        var replaced: Set<String> = []
        for item in query {
            guard let setting = settings.first(where: { $0.name == item.name }) else {
                items.append(item)
                continue
            }
            if replaced.insert(setting.name).inserted { items.append(setting) }
        }
        items += settings.filter { !replaced.contains($0.name) }
        return Self.url(path: path, query: items)
    }

    /// The query items a navigation link keeps: the reader's locale and currency and the portfolio chosen.
    static let kept: Set<String> = ["locale", "currency", "portfolio"]

    /// `path` with the reader's explicit locale, currency and portfolio choices kept: a navigation link.
    func href(page path: String) -> String {
        Self.url(path: path, query: query.filter { Self.kept.contains($0.name) })
    }

    /// `path` with the reader's explicit locale and currency kept and `portfolio` chosen (none for "main", the default): a
    /// link of a page that acts on one portfolio.
    func href(page path: String, portfolio: String) -> String {
        var items = query.filter { $0.name == "locale" || $0.name == "currency" }
        if portfolio != PortfolioView.mainPortfolio { items.append(QueryItem(name: "portfolio", value: portfolio)) }
        return Self.url(path: path, query: items)
    }

    /// This page showing `portfolio` instead: every query item kept (range, locale, currency) but the notices of what was
    /// just done (`imported`, `duplicates`, `added`, `removed`), which were about the portfolio shown.
    func href(switchingTo portfolio: String) -> String {
        var page = self
        page.query.removeAll { ["imported", "duplicates", "added", "removed"].contains($0.name) }
        return page.href(setting: "portfolio", to: portfolio)
    }

    /// The portfolio the page's query chose (`portfolio`, trimmed), nil for none: "main".
    var portfolio: String? {
        guard let value = query.first(where: { $0.name == "portfolio" })?.value.trimmingCharacters(in: .whitespacesAndNewlines),
              !value.isEmpty else { return nil }
        return value
    }

    /// Whether the page at `page` (a navigation target) is this one or a detail below it.
    func isWithin(_ page: String) -> Bool {
        path == page || path.hasPrefix(page + "/")
    }

    /// The characters a URL carries as they are (RFC 3986's unreserved); every other is percent-encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `path` with `query` percent-encoded.
    static func url(path: String, query: [QueryItem]) -> String {
        guard !query.isEmpty else { return path }
        let encoded = query.map { item in
            let name = item.name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
            let value = item.value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
            return "\(name)=\(value)"
        }
        return path + "?" + encoded.joined(separator: "&")
    }
}
