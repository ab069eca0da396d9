import BusContract
import Foundation
import Hummingbird
import PresenterViews
import ServiceSupport
import Synchronization
import TickwireContract

/// The files being imported from the dashboard, each kept for 30 minutes under a random id and the CSRF token of the
/// reader who posted it (at most 100; the oldest goes first): a preview is a page of its own
/// (`/portfolio/import?draft=<id>`), which the page's live updates fetch again, and its confirm button names the draft.
final class ImportDrafts: Sendable {
    /// A file posted for import into a portfolio.
    struct Draft: Sendable {
        let content: String
        let format: ActivityFileFormat
        let portfolio: String
        let owner: String
        let expires: ContinuousClock.Instant
    }

    private let drafts = Mutex<[String: Draft]>([:])
    private let lifetime: Duration
    private let limit: Int

    init(lifetime: Duration = .seconds(30 * 60), limit: Int = 100) {
        self.lifetime = lifetime
        self.limit = limit
    }

    /// Keeps `content`, to go into `portfolio`, for `owner`; its id.
    func keep(_ content: String, format: ActivityFileFormat, portfolio: String, owner: String) -> String {
        let id = CSRF.randomToken()
        let now = ContinuousClock.now
        drafts.withLock { drafts in
            drafts = drafts.filter { $0.value.expires > now }
            while drafts.count >= limit, let oldest = drafts.min(by: { $0.value.expires < $1.value.expires }) { drafts[oldest.key] = nil }
            drafts[id] = Draft(content: content, format: format, portfolio: portfolio, owner: owner, expires: now + lifetime)
        }
        return id
    }

    /// The draft `id` of `owner`, unless it expired.
    func draft(_ id: String, owner: String) -> Draft? {
        drafts.withLock { drafts in
            guard let draft = drafts[id], draft.expires > .now, constantTimeEqual(draft.owner, owner) else { return nil }
            return draft
        }
    }

    /// Forgets the draft `id`.
    func remove(_ id: String) {
        _ = drafts.withLock { $0.removeValue(forKey: id) }
    }
}

/// The Portfolio screen's import and export: `POST /portfolio/import` keeps a pasted Ghostfolio file, with the portfolio it
/// goes into (its `portfolio` field, a new name included; "main" when empty), and shows its preview at
/// `GET /portfolio/import?draft=<id>` (`activities.import` with `dryRun` true), `POST /portfolio/import/confirm` imports it
/// (`dryRun` false; the portfolio checks every line again) and goes back to that portfolio's screen with a notice,
/// `GET /portfolio/export.csv` and `.json` download every activity of the portfolio in `?portfolio=` ("main" without).
/// Whatever goes wrong (the portfolio down, a file too large, not CSV, an invalid portfolio name, an expired preview) is a
/// notice on the import page, never a 500.
extension WebServer {
    /// The form's fields: the file's text, its format (`auto`, `csv` or `json`) and the portfolio it goes into, or the draft to import.
    struct ImportForm: Decodable {
        var content: String?
        var format: String?
        var portfolio: String?
        var draft: String?
    }

    /// The largest file the form takes, in UTF-8 bytes: ``Pages/importLimitBytes``, or half the dashboard's request
    /// limit when that is lower.
    var importLimitBytes: Int { min(security.maxBodyBytes / 2, Pages.importLimitBytes) }

    /// `POST /portfolio/import`: the file kept as a draft, then its preview.
    func postImport(_ request: Request) async -> Response {
        let context = importPageContext(request)
        let form: ImportForm
        do {
            form = try await decodeImportForm(request)
        } catch {
            return importPage(nil, content: "", format: nil, portfolio: context.portfolio ?? PortfolioView.mainPortfolio,
                              notice: "The form could not be read: \(error)", status: .badRequest, context: context)
        }
        let portfolio = ScreenBuilder.portfolioName(form.portfolio)
        let content = form.content ?? ""
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return importPage(nil, content: content, format: nil, portfolio: portfolio, notice: "Paste a Ghostfolio CSV or JSON file first: the form was empty.",
                              status: .badRequest, context: context)
        }
        guard content.utf8.count <= importLimitBytes else {
            return importPage(nil, content: "", format: nil, portfolio: portfolio, notice: "The file is \(content.utf8.count / 1024) KiB; the dashboard imports at most "
                              + "\(importLimitBytes / 1024) KiB at a time: split it into parts of whole lines (a part imported twice adds nothing).",
                              status: .contentTooLarge, context: context)
        }
        let format: ActivityFileFormat
        switch form.format ?? "auto" {
        case "auto": format = content.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{" ? .json : .csv
        case let name:
            guard let named = ActivityFileFormat(rawValue: name) else {
                return importPage(nil, content: content, format: nil, portfolio: portfolio, notice: "Unknown format \"\(name)\": pick CSV or JSON.",
                                  status: .badRequest, context: context)
            }
            format = named
        }
        let id = importDrafts.keep(content, format: format, portfolio: portfolio, owner: context.csrfToken)
        return Response.redirect(to: "/portfolio/import?draft=\(id)", type: .normal)
    }

    /// `GET /portfolio/import?draft=<id>`: the preview of every line of the draft (the import form alone without one).
    func previewImport(_ request: Request) async -> Response {
        let context = importPageContext(request)
        guard let id = context.query.first(where: { $0.name == "draft" })?.value else {
            return importPage(nil, content: "", format: nil, portfolio: context.portfolio ?? PortfolioView.mainPortfolio, status: .ok, context: context)
        }
        guard let draft = importDrafts.draft(id, owner: context.csrfToken) else { return expired(context) }
        return await importDraft(draft, id: id, dryRun: true, context: context)
    }

    /// `POST /portfolio/import/confirm` (`draft`): the import, then the Portfolio screen saying how many were added.
    func confirmImport(_ request: Request) async -> Response {
        let context = importPageContext(request)
        guard let id = try? await decodeImportForm(request).draft, let draft = importDrafts.draft(id, owner: context.csrfToken) else {
            return expired(context)
        }
        return await importDraft(draft, id: id, dryRun: false, context: context)
    }

    private func expired(_ context: PageContext) -> Response {
        importPage(nil, content: "", format: nil, portfolio: context.portfolio ?? PortfolioView.mainPortfolio, notice: "This preview is no longer kept (previews are kept 30 minutes, in this presenter): "
                   + "paste the file again. Nothing was imported.", status: .notFound, context: context)
    }

    private func importDraft(_ draft: ImportDrafts.Draft, id: String, dryRun: Bool, context: PageContext) async -> Response {
        let preview: ImportPreview
        do {
            preview = try await portfolio.importActivities(ImportActivitiesRequest(
                format: draft.format, content: draft.content, dryRun: dryRun, by: "dashboard", portfolio: draft.portfolio))
        } catch {
            runtime.logger.warning("import failed", metadata: ["error": "\(ScreenBuilder.describe(error))", "dryRun": "\(dryRun)", "portfolio": "\(draft.portfolio)"])
            let bad = (error as? RPCError).map { $0.code == -32602 || $0.code == -32700 } ?? false
            return importPage(nil, content: draft.content, format: draft.format, portfolio: draft.portfolio,
                              notice: "Nothing was imported: \(bad ? "" : "the portfolio did not answer: ")" + ScreenBuilder.describe(error),
                              status: bad ? .badRequest : .serviceUnavailable, context: context)
        }
        if !dryRun, preview.written {
            importDrafts.remove(id)
            runtime.logger.info("activities imported", metadata: ["new": "\(preview.new)", "duplicates": "\(preview.duplicates)", "portfolio": "\(draft.portfolio)"])
            let shown = draft.portfolio == PortfolioView.mainPortfolio ? [] : [PageContext.QueryItem(name: "portfolio", value: draft.portfolio)]
            let query = shown + [.init(name: "imported", value: "\(preview.new)"), .init(name: "duplicates", value: "\(preview.duplicates)")]
            return Response.redirect(to: PageContext.url(path: "/portfolio", query: query), type: .normal)
        }
        var notices: [String] = []
        if !dryRun {
            notices.append(preview.new == 0 && preview.errors == 0 && preview.fileErrors.isEmpty
                ? "Nothing was imported: every line was imported before."
                : "Nothing was imported: the portfolio found errors, shown below.")
        }
        if !preview.fileErrors.isEmpty { notices.append("The file cannot be imported: \(preview.fileErrors.map(\.reason).joined(separator: "; "))") }
        return importPage(preview, draft: id, content: draft.content, format: draft.format, portfolio: draft.portfolio, notices: notices,
                          status: .ok, context: context)
    }

    /// `GET /portfolio/export.csv` or `.json` (`?portfolio=`, "main" without): every activity of the portfolio as a download
    /// named `tickwire-activities-<day>.<format>`, with the portfolio's name before the day unless it is "main".
    func exportActivities(_ format: ActivityFileFormat, _ request: Request) async -> Response {
        let context = importPageContext(request)
        let name = context.portfolio ?? PortfolioView.mainPortfolio
        do {
            let exported = try await portfolio.exportActivities(ExportActivitiesRequest(format: format, portfolio: name))
            let type = format == .csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8"
            let file = "tickwire-activities-\(Self.fileNamePart(name))\(DisplayDate.isoDay(Date())).\(format.rawValue)"
            return Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(file)\"", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: exported.content)))
        } catch {
            runtime.logger.warning("export failed", metadata: ["error": "\(ScreenBuilder.describe(error))", "portfolio": "\(name)"])
            let bad = (error as? RPCError)?.code == -32602
            return importPage(nil, content: "", format: nil, portfolio: name,
                              notice: "Nothing was exported: \(bad ? "" : "the portfolio did not answer: ")\(ScreenBuilder.describe(error))",
                              status: bad ? .badRequest : .serviceUnavailable, context: context)
        }
    }

    /// A portfolio's name as part of a download's file name ("Savings_2-" for "Savings 2"; nothing for "main"): ASCII letters,
    /// digits, `-`, `_` and `.`, anything else `_`, so the header stays plain.
    static func fileNamePart(_ portfolio: String) -> String {
        guard portfolio != PortfolioView.mainPortfolio else { return "" }
        let safe = portfolio.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)) ? String(scalar) : "_"
        }.joined()
        return safe + "-"
    }

    private func decodeImportForm(_ request: Request) async throws -> ImportForm {
        let body = try await request.body.collect(upTo: max(security.maxBodyBytes, 64 << 10))
        return try URLEncodedFormDecoder().decode(ImportForm.self, from: String(buffer: body))
    }

    /// The import page's context: the reader's locale (the default currency), its links to the Portfolio screen.
    private func importPageContext(_ request: Request) -> PageContext {
        let now = Date()
        let query = PageContext.parseQuery(request.uri.query ?? "")
        let context = (try? ViewContext.resolve(locale: nil, acceptLanguage: request.headers[.acceptLanguage], currency: nil, now: now)) ?? ViewContext(now: now)
        return PageContext(context, path: request.uri.path, query: query, csrfToken: CSRF.token(of: request).value)
    }

    private func importPage(_ preview: ImportPreview?, draft: String? = nil, content: String, format: ActivityFileFormat?, portfolio: String,
                            notice: String? = nil, notices: [String] = [], status: HTTPResponse.Status, context: PageContext) -> Response {
        let page = Pages.importPreview(preview, draft: draft, content: content, format: format, portfolio: portfolio, limitBytes: importLimitBytes,
                                       notices: notices + (notice.map { [$0] } ?? []), context: context)
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}
