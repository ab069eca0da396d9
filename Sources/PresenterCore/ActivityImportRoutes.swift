import BusContract
import Foundation
import Hummingbird
import PresenterViews
import TickwireContract

/// The Portfolio screen's import and export: `POST /portfolio/import` previews a Ghostfolio file (`activities.import`
/// with `dryRun` true), `POST /portfolio/import/confirm` imports it (`dryRun` false; the portfolio checks every line
/// again) and goes back to the Portfolio screen with a notice, `GET /portfolio/export.csv` and `.json` download every
/// activity. Whatever goes wrong (the portfolio down, a file too large, not CSV) is a notice on the import page.
extension WebServer {
    /// The form's fields: the file's text and its format (`auto`, `csv` or `json`).
    struct ImportForm: Decodable {
        var content: String?
        var format: String?
    }

    /// The largest file the form takes, in UTF-8 bytes: ``Pages/importLimitBytes``, or half the dashboard's request
    /// limit when that is lower.
    var importLimitBytes: Int { min(security.maxBodyBytes / 2, Pages.importLimitBytes) }

    /// `POST /portfolio/import`: the preview of every line.
    func previewImport(_ request: Request) async -> Response {
        await importActivities(request, dryRun: true)
    }

    /// `POST /portfolio/import/confirm`: the import, then the Portfolio screen saying how many were added.
    func confirmImport(_ request: Request) async -> Response {
        await importActivities(request, dryRun: false)
    }

    private func importActivities(_ request: Request, dryRun: Bool) async -> Response {
        let context = importPageContext(request)
        let form: ImportForm
        do {
            form = try await decodeImportForm(request)
        } catch {
            return importPage(nil, content: "", format: nil, notice: "The form could not be read: \(error)", status: .badRequest, context: context)
        }
        let content = form.content ?? ""
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return importPage(nil, content: content, format: nil, notice: "Paste a Ghostfolio CSV or JSON file first: the form was empty.",
                              status: .badRequest, context: context)
        }
        guard content.utf8.count <= importLimitBytes else {
            return importPage(nil, content: "", format: nil, notice: "The file is \(content.utf8.count / 1024) KiB; the dashboard imports at most "
                              + "\(importLimitBytes / 1024) KiB at a time: split it into parts of whole lines (a part imported twice adds nothing).",
                              status: .contentTooLarge, context: context)
        }
        let format: ActivityFileFormat
        switch form.format ?? "auto" {
        case "auto": format = content.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{" ? .json : .csv
        case let name:
            guard let named = ActivityFileFormat(rawValue: name) else {
                return importPage(nil, content: content, format: nil, notice: "Unknown format \"\(name)\": pick CSV or JSON.",
                                  status: .badRequest, context: context)
            }
            format = named
        }
        let preview: ImportPreview
        do {
            preview = try await portfolio.importActivities(ImportActivitiesRequest(format: format, content: content, dryRun: dryRun, by: "dashboard"))
        } catch {
            runtime.logger.warning("import failed", metadata: ["error": "\(ScreenBuilder.describe(error))", "dryRun": "\(dryRun)"])
            let bad = (error as? RPCError).map { $0.code == -32602 || $0.code == -32700 } ?? false
            return importPage(nil, content: content, format: format, notice: "Nothing was imported: \(bad ? "" : "the portfolio did not answer: ")"
                              + ScreenBuilder.describe(error), status: bad ? .badRequest : .serviceUnavailable, context: context)
        }
        if !dryRun, preview.written {
            runtime.logger.info("activities imported", metadata: ["new": "\(preview.new)", "duplicates": "\(preview.duplicates)"])
            return Response.redirect(to: "/portfolio?imported=\(preview.new)&duplicates=\(preview.duplicates)", type: .normal)
        }
        var notices: [String] = []
        if !dryRun {
            notices.append(preview.new == 0 && preview.errors == 0 && preview.fileErrors.isEmpty
                ? "Nothing was imported: every line was imported before."
                : "Nothing was imported: the portfolio found errors, shown below.")
        }
        if !preview.fileErrors.isEmpty { notices.append("The file cannot be imported: \(preview.fileErrors.map(\.reason).joined(separator: "; "))") }
        return importPage(preview, content: content, format: format, notices: notices, status: .ok, context: context)
    }

    /// `GET /portfolio/export.csv` or `.json`: every activity as a download named `tickwire-activities-<day>.<format>`.
    func exportActivities(_ format: ActivityFileFormat, _ request: Request) async -> Response {
        do {
            let exported = try await portfolio.exportActivities(ExportActivitiesRequest(format: format))
            let type = format == .csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8"
            let name = "tickwire-activities-\(DisplayDate.isoDay(Date())).\(format.rawValue)"
            return Response(status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\"", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: exported.content)))
        } catch {
            runtime.logger.warning("export failed", metadata: ["error": "\(ScreenBuilder.describe(error))"])
            return importPage(nil, content: "", format: nil, notice: "Nothing was exported: the portfolio did not answer: \(ScreenBuilder.describe(error))",
                              status: .serviceUnavailable, context: importPageContext(request))
        }
    }

    private func decodeImportForm(_ request: Request) async throws -> ImportForm {
        let body = try await request.body.collect(upTo: max(security.maxBodyBytes, 64 << 10))
        return try URLEncodedFormDecoder().decode(ImportForm.self, from: String(buffer: body))
    }

    private func importPageContext(_ request: Request) -> PageContext {
        let now = Date()
        let context = (try? ViewContext.resolve(locale: nil, acceptLanguage: request.headers[.acceptLanguage], currency: nil, now: now)) ?? ViewContext(now: now)
        return PageContext(context, path: "/portfolio/import", csrfToken: CSRF.token(of: request).value)
    }

    private func importPage(_ preview: ImportPreview?, content: String, format: ActivityFileFormat?, notice: String? = nil, notices: [String] = [],
                            status: HTTPResponse.Status, context: PageContext) -> Response {
        let page = Pages.importPreview(preview, content: content, format: format, limitBytes: importLimitBytes,
                                       notices: notices + (notice.map { [$0] } ?? []), context: context)
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}
