import Bus
import BusContract
import Foundation
import Hummingbird
import Metrics
import Money
import PresenterViews
import TickwireContract

/// The plugins' pages: `GET /plugins/{name}` renders the plugin's ``Panel`` (asked for anew), or says it is not running
/// (503); `POST /plugins/{name}/call` calls the method a form of its current panel names, with that form's fields as
/// params, and goes back to the page with a notice (or shows the plugin's error there). A method no form of the panel
/// names is not called.
extension WebServer {
    /// `GET /plugins/{name}`.
    func pluginPage(_ name: String, _ request: Request) async -> Response {
        let page = pluginPageContext(request)
        guard let upstream = plugins.upstream(name) else { return pluginUnknown(name, page: page) }
        // Asked now even when it missed the last poll: one slow answer does not make its page say it is not running.
        do {
            let panel = try await plugins.refresh(upstream)
            // Only a method one of the page's forms calls is named, by that form's button: `?done=` says nothing else.
            let done = page.context.query.first { $0.name == "done" }?.value
            let form = done.flatMap { method in Self.forms(of: panel).first { $0.method == method } }
            let notices = form.map { ["\($0.submit): done."] } ?? []
            return pluginResponse(Pages.plugin(panel, name: name, notices: notices, context: page.context), status: .ok, page: page)
        } catch {
            return pluginResponse(Pages.pluginNotRunning(name: name, reason: ScreenBuilder.describe(error), context: page.context),
                                  status: .serviceUnavailable, page: page)
        }
    }

    /// `POST /plugins/{name}/call` (`method`, and a `p.<field>` per field of the form that names it).
    func callPlugin(_ name: String, _ request: Request) async -> Response {
        let page = pluginPageContext(request)
        guard let upstream = plugins.upstream(name) else { return pluginUnknown(name, page: page) }
        let posted: [PageContext.QueryItem]
        do {
            posted = PageContext.parseQuery(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
        } catch {
            return refusePluginCall(name, reason: "unreadable", message: "The form could not be read, so nothing was called: \(error)", page: page)
        }
        let method = posted.first { $0.name == "method" }?.value ?? ""
        let panel: Panel
        do {
            panel = try await plugins.refresh(upstream)
        } catch {
            return pluginResponse(
                Pages.pluginNotRunning(name: name, reason: "Nothing was called: \(ScreenBuilder.describe(error))", context: page.context),
                status: .serviceUnavailable, page: page)
        }
        guard let form = Self.forms(of: panel).first(where: { $0.method == method }) else {
            return refusePluginCall(name, reason: "method", message: "The page of \(name) has no form that calls \"\(method)\", so it was not called.",
                                    panel: panel, page: page)
        }
        let params: PluginParams
        do {
            params = try Self.params(of: form, posted: posted)
        } catch {
            return refusePluginCall(name, reason: "field", message: "\(form.submit): \(error) Nothing was called.", panel: panel, page: page)
        }
        do {
            _ = try await upstream.client.call(method, params)
            runtime.logger.info("plugin called", metadata: ["plugin": "\(name)", "method": "\(method)"])
            return Response.redirect(to: PageContext.url(path: Plugins.path(of: name), query: [.init(name: "done", value: method)]), type: .normal)
        } catch let error as RPCError {
            runtime.logger.warning("plugin refused a call", metadata: ["plugin": "\(name)", "method": "\(method)", "error": "\(error.message)"])
            return pluginResponse(Pages.plugin(panel, name: name, notices: ["\(form.submit) failed: \(error.message)"], context: page.context),
                                  status: .badRequest, page: page)
        } catch {
            runtime.logger.warning("plugin call failed", metadata: ["plugin": "\(name)", "method": "\(method)", "error": "\(error)"])
            return pluginResponse(
                Pages.pluginNotRunning(name: name, reason: "\(form.submit) was not done: \(ScreenBuilder.describe(error))", context: page.context),
                status: .serviceUnavailable, page: page)
        }
    }

    /// Every form of `panel`: its sections' and its rows' actions.
    static func forms(of panel: Panel) -> [PanelForm] {
        panel.sections.flatMap { section in
            (section.form.map { [$0] } ?? []) + (section.table?.rows.compactMap(\.action) ?? [])
        }
    }

    /// The params `form`'s fields make of what was `posted` (``Pages/pluginFieldName(_:)``): an empty field is left out,
    /// a required one may not be; an integer is a JSON number, a decimal a string that must be a decimal number, a select's
    /// value one of its options. Whatever else was posted is ignored.
    static func params(of form: PanelForm, posted: [PageContext.QueryItem]) throws -> PluginParams {
        var params = PluginParams()
        for field in form.fields {
            let key = Pages.pluginFieldName(field.name)
            let raw = posted.first { $0.name == key }?.value ?? ""
            let text = field.kind == .text ? raw : raw.trimmingCharacters(in: .whitespaces)
            let label = field.label ?? field.name
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                if field.required == true { throw PluginFieldError("\(label) is required.") }
                continue
            }
            switch field.kind {
            case .text, .hidden:
                params.values[field.name] = .string(text)
            case .decimal:
                guard text.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?/) != nil, (try? ExactDecimal(text)) != nil else {
                    throw PluginFieldError("\(label) must be a decimal number such as 12.50, got \"\(text)\".")
                }
                params.values[field.name] = .string(text)
            case .integer:
                guard let number = Int64(text) else { throw PluginFieldError("\(label) must be a whole number, got \"\(text)\".") }
                params.values[field.name] = .integer(number)
            case .select:
                guard (field.options ?? []).contains(text) else {
                    throw PluginFieldError("\(label) must be one of \((field.options ?? []).joined(separator: ", ")), got \"\(text)\".")
                }
                params.values[field.name] = .string(text)
            }
        }
        return params
    }

    private struct PluginPage {
        let context: PageContext
        let newToken: Bool
    }

    private func pluginPageContext(_ request: Request) -> PluginPage {
        let (context, newToken) = Self.pageContext(of: request, path: request.uri.path.replacing(/\/call$/, with: ""))
        return PluginPage(context: context, newToken: newToken)
    }

    private func pluginUnknown(_ name: String, page: PluginPage) -> Response {
        let view = ErrorView.make(title: "Not found", message: "The dashboard shows no plugin named \"\(name)\".", lastGood: nil,
                                  context: ViewContext(now: page.context.now))
        return pluginResponse(Pages.error(view, context: page.context), status: .notFound, page: page)
    }

    /// A call refused before it was made: logged, counted (`tickwire_presenter_plugin_refused_total{plugin,reason}`), and
    /// the plugin's page (when it answered) saying why.
    private func refusePluginCall(_ name: String, reason: String, message: String, panel: Panel? = nil, page: PluginPage) -> Response {
        runtime.logger.warning("plugin call refused", metadata: ["plugin": "\(name)", "reason": "\(reason)", "message": "\(message)"])
        Counter(label: "tickwire_presenter_plugin_refused_total", dimensions: [("plugin", name), ("reason", reason)]).increment()
        guard let panel else {
            let view = ErrorView.make(title: "Not done", message: message, lastGood: nil, context: ViewContext(now: page.context.now))
            return pluginResponse(Pages.error(view, context: page.context), status: .badRequest, page: page)
        }
        return pluginResponse(Pages.plugin(panel, name: name, notices: [message], context: page.context), status: .badRequest, page: page)
    }

    private func pluginResponse(_ html: String, status: HTTPResponse.Status, page: PluginPage) -> Response {
        var response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
        if page.newToken { response.headers[.setCookie] = CSRF.setCookie(page.context.csrfToken) }
        return response
    }
}

/// A form field whose value does not fit its kind, or a required one left empty.
struct PluginFieldError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Sets ``Layout/pluginLinks`` for each request, so every page links the plugins that answer.
struct PluginLinksMiddleware<Context: RequestContext>: RouterMiddleware {
    let plugins: Plugins

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await Layout.$pluginLinks.withValue(plugins.links()) { try await next(request, context) }
    }
}
