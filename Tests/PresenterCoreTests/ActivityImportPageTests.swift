import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract
@testable import PresenterCore

@Suite("The Portfolio screen's import and export")
struct ActivityImportPageTests {
    /// Ghostfolio's CSV layout with a buy, a sell, a fee and a transfer of BTC.
    static let csv = """
        Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note
        2024-01-02,BTC,MANUAL,USD,42000.50,0.5,buy,12.00,
        2024-02-03,BTC,MANUAL,USD,45000,0.2,sell,5,
        2024-02-04,BTC,MANUAL,USD,0,0,fee,3.50,
        2024-03-05,BTC,MANUAL,USD,43000,0.1,transfer_in,0,
        """

    /// A presenter over the mocks, its portfolio's import and export replaced by `change`.
    static func presenter(_ change: (inout PortfolioClient) -> Void) throws -> InProcessPresenter {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = ConverterClient.mock(fetcher: fetcher)
        var portfolio = PortfolioClient.mock(fetcher: fetcher, converter: converter)
        change(&portfolio)
        return try InProcessPresenter(portfolio: portfolio, converter: converter, fetcher: fetcher)
    }

    /// Posts `fields` to the import form and follows its redirect to the preview; the draft's id too.
    static func preview(_ client: some TestClientProtocol, _ csrf: CSRFToken, _ fields: [(String, String)]) async throws -> (page: TestResponse, draft: String) {
        let posted = try await client.execute(uri: "/portfolio/import", method: .post, headers: csrf.headers, body: csrf.form(fields))
        #expect(posted.status == .seeOther, "\(posted.text.prefix(300))")
        let location = try #require(posted.headers[.location])
        #expect(location.hasPrefix("/portfolio/import?draft="))
        let page = try await client.execute(uri: location, method: .get, headers: [.cookie: "tickwire_csrf=\(csrf.value)"])
        return (page, String(location.dropFirst("/portfolio/import?draft=".count)))
    }

    /// The preview lists every line; a line with an error names its column and reason, and no confirm button is offered.
    @Test func previewNamesTheColumnOfAnError() async throws {
        try await InProcessPresenter.mocks().test { client in
            let csrf = try await CSRFToken(from: client, path: "/portfolio")
            let bad = Self.csv + "\n2023-02-30,BTC,MANUAL,USD,40000,1,buy,0,"
            let response = try await Self.preview(client, csrf, [("format", "auto"), ("content", bad)]).page
            #expect(response.status == .ok)
            let page = response.text
            #expect(page.components(separatedBy: "class=\"import-line ").count - 1 == 5, "every line is a row")
            #expect(page.contains("data-line=\"6\" data-status=\"error\""))
            #expect(page.contains("<b class=\"column\">Date</b>: &quot;2023-02-30&quot; is not a date: February 2023 has 28 days"))
            #expect(page.contains("data-line=\"2\" data-status=\"new\""))
            #expect(page.contains("4 new</span>") && page.contains("1 with errors</span>"))
            #expect(!page.contains("id=\"import-confirm\""), "nothing to confirm while a line has an error")
            #expect(page.contains("id=\"import-blocked\""))
        }
    }

    /// A clean preview offers "Import N activities", which posts the same text with dryRun false and goes back to the
    /// Portfolio screen with a notice.
    @Test func confirmPostsDryRunFalse() async throws {
        let requests = Mutex<[ImportActivitiesRequest]>([])
        let presenter = try Self.presenter { portfolio in
            let real = portfolio.importActivities
            portfolio.importActivities = { request in
                requests.withLock { $0.append(request) }
                var preview = try await real(ImportActivitiesRequest(format: request.format, content: request.content, dryRun: true))
                preview.dryRun = request.dryRun ?? true
                preview.written = request.dryRun == false
                return preview
            }
        }
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/portfolio")
            let (preview, draft) = try await Self.preview(client, csrf, [("format", "csv"), ("content", Self.csv)])
            #expect(preview.status == .ok)
            #expect(preview.text.contains("id=\"import-confirm\"") && preview.text.contains("Import 4 activities</button>"))
            #expect(preview.text.contains("<td class=\"kind\">Transfer in</td>") && preview.text.contains("<td class=\"num fee\">3.50 USD</td>"))
            #expect(preview.text.contains("name=\"draft\" value=\"\(draft)\""))
            let other = try await client.execute(uri: "/portfolio/import?draft=\(draft)", method: .get)
            #expect(other.status == .notFound && other.text.contains("This preview is no longer kept"), "another reader's cookie sees no draft")
            let confirmed = try await client.execute(uri: "/portfolio/import/confirm", method: .post, headers: csrf.headers,
                                                     body: csrf.form([("draft", draft)]))
            #expect(confirmed.status == .seeOther)
            #expect(confirmed.headers[.location] == "/portfolio?imported=4&duplicates=0")
            let sent = requests.withLock { $0 }
            #expect(sent.map(\.dryRun) == [true, false])
            #expect(sent.map(\.content) == [Self.csv, Self.csv] && sent.allSatisfy { $0.format == .csv && $0.by == "dashboard" })
            let portfolio = try await client.execute(uri: "/portfolio?imported=4&duplicates=1", method: .get)
            #expect(portfolio.text.contains("Imported 4 activities; 1 already imported, skipped."))
            #expect(portfolio.text.contains("id=\"import-form\"") && portfolio.text.contains("href=\"/portfolio/export.csv\""))
            #expect(portfolio.text.contains("<input type=\"file\" id=\"import-file\"") && portfolio.text.contains("data-limit=\"32768\""))
            #expect(portfolio.text.contains("<script src=\"/static/import-file.js\"></script>"))
            let script = try await client.execute(uri: "/static/import-file.js", method: .get)
            #expect(script.status == .ok && script.text.contains("file.text()"))
        }
    }

    /// The export links download activities.export's text with a Content-Disposition filename.
    @Test func exportHeaders() async throws {
        let presenter = try Self.presenter { portfolio in
            portfolio.exportActivities = { request in
                ExportedActivities(format: request.format, activities: 1,
                                   content: request.format == .csv ? "Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,FeeCurrency\n" : "{\"activities\":[]}")
            }
        }
        try await presenter.test { client in
            let csv = try await client.execute(uri: "/portfolio/export.csv", method: .get)
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let disposition = try #require(csv.headers[.contentDisposition])
            #expect(disposition.hasPrefix("attachment; filename=\"tickwire-activities-") && disposition.hasSuffix(".csv\""))
            #expect(csv.text == "Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,FeeCurrency\n")
            let json = try await client.execute(uri: "/portfolio/export.json", method: .get)
            #expect(json.headers[.contentType] == "application/json; charset=utf-8")
            #expect(json.headers[.contentDisposition]?.hasSuffix(".json\"") == true)
            #expect(json.text == "{\"activities\":[]}")
        }
    }

    /// The portfolio down, a file too large, an empty form, an unknown draft, not CSV: each a notice on the import page, never a 500.
    @Test func errorsAreNotices() async throws {
        let presenter = try Self.presenter { portfolio in
            portfolio.importActivities = PortfolioClient.failing.importActivities
            portfolio.exportActivities = PortfolioClient.failing.exportActivities
        }
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/portfolio")
            let down = try await Self.preview(client, csrf, [("format", "csv"), ("content", Self.csv)]).page
            #expect(down.status == .serviceUnavailable)
            #expect(down.text.contains("Nothing was imported: the portfolio did not answer"))
            #expect(down.text.contains("id=\"import-form\""), "the form again, to retry")
            let export = try await client.execute(uri: "/portfolio/export.csv", method: .get)
            #expect(export.status == .serviceUnavailable && export.text.contains("Nothing was exported"))
            let large = try await client.execute(uri: "/portfolio/import", method: .post, headers: csrf.headers,
                                                 body: csrf.form([("content", String(repeating: "a", count: 33 << 10))]))
            #expect(large.status == .contentTooLarge)
            #expect(large.text.contains("The file is 33 KiB; the dashboard imports at most 32 KiB at a time"))
            let empty = try await client.execute(uri: "/portfolio/import", method: .post, headers: csrf.headers, body: csrf.form([("content", " ")]))
            #expect(empty.status == .badRequest && empty.text.contains("the form was empty"))
            let gone = try await client.execute(uri: "/portfolio/import/confirm", method: .post, headers: csrf.headers, body: csrf.form([("draft", "nope")]))
            #expect(gone.status == .notFound && gone.text.contains("This preview is no longer kept") && gone.text.contains("Nothing was imported"))
        }
        try await InProcessPresenter.mocks().test { client in
            let csrf = try await CSRFToken(from: client, path: "/portfolio")
            let binary = try await Self.preview(client, csrf, [("format", "csv"), ("content", "just some words")]).page
            #expect(binary.status == .ok)
            #expect(binary.text.contains("The file cannot be imported: not a Ghostfolio CSV"))
            #expect(!binary.text.contains("id=\"import-confirm\""))
        }
    }
}
