import PresenterViews
import Foundation
import Testing
@testable import PresenterCore

struct PageContextTests {
    private func context(_ query: String) -> PageContext {
        PageContext(locale: "en_US", currency: "USD", path: "/assets", query: PageContext.parseQuery(query), now: SampleData.now, requestId: "r")
    }

    /// Query strings are percent-decoded, `+` read as a space, empty names dropped.
    @Test func parseQuery() {
        #expect(PageContext.parseQuery("filter=fiat&q=a+b%26c&flag&=x") == [
            .init(name: "filter", value: "fiat"), .init(name: "q", value: "a b&c"), .init(name: "flag", value: ""),
        ])
    }

    /// A switch link replaces its item in place, drops duplicates, keeps the rest, and encodes values.
    @Test func switchLinks() {
        let page = context("locale=de_AT&filter=crypto&locale=sv_SE")
        #expect(page.href(setting: "locale", to: "es_MX") == "/assets?locale=es_MX&filter=crypto")
        #expect(page.href(setting: "currency", to: "SEK") == "/assets?locale=de_AT&filter=crypto&locale=sv_SE&currency=SEK")
        #expect(context("q=a b").href(setting: "filter", to: "<all>") == "/assets?q=a%20b&filter=%3Call%3E")
    }

    /// Navigation links keep only the reader's locale and currency choices; detail pages mark their list.
    @Test func navigation() {
        let page = PageContext(locale: "en_US", currency: "SEK", path: "/coins/BTC", query: PageContext.parseQuery("currency=SEK&filter=fiat"), now: SampleData.now)
        #expect(page.href(page: "/books") == "/books?currency=SEK")
        #expect(page.isWithin("/coins"))
        #expect(!page.isWithin("/coin"))
    }
}
