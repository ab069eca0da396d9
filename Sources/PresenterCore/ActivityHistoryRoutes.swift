import BusContract
import Foundation
import Hummingbird
import PresenterViews
import TickwireContract

/// The Portfolio screen's removal of an activity and its history, each of the portfolio in `?portfolio=` ("main" without):
/// `GET /portfolio/trades/{id}/remove` shows the activity and asks, `POST` to it removes it (`trades.remove`, once per
/// `requestId`) and goes back to the portfolio's screen with a notice, `GET /portfolio/history` lists its `trades.history`.
/// A refusal (a removal that would leave a later sell short), an unknown activity or the portfolio down is a notice on the
/// page, never a 500.
extension WebServer {
    /// The removal form's fields.
    struct RemoveForm: Decodable {
        var requestId: String?
        var portfolio: String?
    }

    /// `GET /portfolio/trades/{id}/remove`: the activity, if the portfolio has it, and the button that removes it.
    func confirmRemoval(id: String, _ request: Request) async -> Response {
        let context = portfolioPageContext(request)
        let name = ScreenBuilder.portfolioName(context.portfolio)
        do {
            let trades = try await portfolio.trades(TradesRequest(portfolio: name))
            guard let trade = trades.first(where: { $0.id == id }) else {
                return removalPage(nil, id: id, portfolio: name, notice: "\(name) has no activity \(id): it may have been removed already.",
                                   status: .notFound, context: context)
            }
            return removalPage(PortfolioView.row(trade, locale: context.locale), id: id, portfolio: name, status: .ok, context: context)
        } catch {
            let (status, text) = Self.refusal(error)
            return removalPage(nil, id: id, portfolio: name, notice: "The activity cannot be shown: \(text)", status: status, context: context)
        }
    }

    /// `POST /portfolio/trades/{id}/remove` (`requestId`, `portfolio`): the removal, then the portfolio's screen saying so. A form
    /// that cannot be read removes nothing (400); nor does one naming a portfolio the activity is not in (404).
    func removeActivity(id: String, _ request: Request) async -> Response {
        let context = portfolioPageContext(request)
        let form: RemoveForm
        do {
            form = try await decodeRemoveForm(request)
        } catch {
            let name = ScreenBuilder.portfolioName(context.portfolio)
            runtime.logger.warning("removal form unreadable", metadata: ["id": "\(id)", "portfolio": "\(name)", "error": "\(error)"])
            return await removalPage(shownRow(id, of: name, context: context), id: id, portfolio: name,
                                     notice: "The form could not be read, so nothing was removed: \(error)", status: .badRequest, context: context)
        }
        let name = ScreenBuilder.portfolioName(form.portfolio ?? context.portfolio)
        do {
            guard try await isRemovable(id, from: name, requestId: form.requestId) else {
                runtime.logger.warning("removal from another portfolio refused", metadata: ["id": "\(id)", "portfolio": "\(name)"])
                return removalPage(nil, id: id, portfolio: name, notice: "\(name) has no activity \(id), so nothing was removed: it may be another "
                                   + "portfolio's, or removed already.", status: .notFound, context: context)
            }
            _ = try await portfolio.removeTrade(RemoveTradeRequest(id: id, requestId: form.requestId, by: "dashboard"))
            runtime.logger.info("activity removed", metadata: ["id": "\(id)", "portfolio": "\(name)", "requestId": "\(form.requestId ?? "")"])
            let shown = name == PortfolioView.mainPortfolio ? [] : [PageContext.QueryItem(name: "portfolio", value: name)]
            return Response.redirect(to: PageContext.url(path: "/portfolio", query: shown + [.init(name: "removed", value: "1")]), type: .normal)
        } catch {
            runtime.logger.warning("removal refused", metadata: ["id": "\(id)", "portfolio": "\(name)", "error": "\(ScreenBuilder.describe(error))"])
            let (status, text) = Self.refusal(error)
            return await removalPage(shownRow(id, of: name, context: context), id: id, portfolio: name, notice: "The activity was not removed: \(text)",
                                     status: status, context: context)
        }
    }

    /// Whether activity `id` is portfolio `name`'s to remove: one of its activities, or, for a form sent again with its
    /// `requestId`, one last removed from it (which `trades.remove` answers again for that `requestId`).
    private func isRemovable(_ id: String, from name: String, requestId: String?) async throws -> Bool {
        if try await portfolio.trades(TradesRequest(portfolio: name)).contains(where: { $0.id == id }) { return true }
        guard requestId != nil, let last = try await portfolio.tradeHistory(TradeHistoryRequest(id: id)).last else { return false }
        return last.action == .removed && last.before?.portfolio == name
    }

    /// Activity `id`'s row if portfolio `name` has it (nil when it has not, or cannot say).
    private func shownRow(_ id: String, of name: String, context: PortfolioPageContext) async -> PortfolioView.TradeRow? {
        try? await portfolio.trades(TradesRequest(portfolio: name)).first { $0.id == id }.map { PortfolioView.row($0, locale: context.locale) }
    }

    /// `GET /portfolio/history`: every revision of the portfolio's activities, newest first.
    func activityHistory(_ request: Request) async -> Response {
        let context = portfolioPageContext(request)
        let name = ScreenBuilder.portfolioName(context.portfolio)
        let revisions: [TradeRevision]?
        var notices: [String] = []
        var status = HTTPResponse.Status.ok
        do {
            revisions = try await portfolio.tradeHistory(TradeHistoryRequest(portfolio: name))
        } catch {
            revisions = nil
            let (refused, text) = Self.refusal(error)
            status = refused
            notices.append("The history cannot be shown: \(text)")
        }
        return page(Pages.activityHistory(revisions, portfolio: name, notices: notices, context: context.page), status: status, context: context)
    }

    /// The status and sentence of a failed call: the portfolio's refusal (400, 404) or its absence (503).
    private static func refusal(_ error: any Error) -> (HTTPResponse.Status, String) {
        switch (error as? RPCError)?.code {
        case RPCError.Code.invalidParams: (.badRequest, ScreenBuilder.describe(error))
        case RPCError.Code.notFound: (.notFound, ScreenBuilder.describe(error))
        default: (.serviceUnavailable, "the portfolio did not answer: \(ScreenBuilder.describe(error))")
        }
    }

    private func decodeRemoveForm(_ request: Request) async throws -> RemoveForm {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return try URLEncodedFormDecoder().decode(RemoveForm.self, from: String(buffer: body))
    }

    /// A page of the portfolio's context: the reader's locale and currency, as asked or by default, its CSRF token, and whether
    /// that token is new (to set as the cookie).
    struct PortfolioPageContext {
        let page: PageContext
        let newToken: Bool

        var portfolio: String? { page.portfolio }
        var locale: String { page.locale }
    }

    private func portfolioPageContext(_ request: Request) -> PortfolioPageContext {
        let (page, newToken) = Self.pageContext(of: request, path: request.uri.path)
        return PortfolioPageContext(page: page, newToken: newToken)
    }

    /// The context of a page at `path` answering `request`: the reader's locale and currency (`?locale=`, `?currency=`, as
    /// asked or by default), the query, its CSRF token, and whether that token is new (to set as the cookie).
    static func pageContext(of request: Request, path: String) -> (page: PageContext, newToken: Bool) {
        let now = Date()
        let query = PageContext.parseQuery(request.uri.query ?? "")
        func asked(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let context = (try? ViewContext.resolve(locale: asked("locale"), acceptLanguage: request.headers[.acceptLanguage], currency: asked("currency"), now: now))
            ?? ViewContext(now: now)
        let token = CSRF.token(of: request)
        return (PageContext(context, path: path, query: query, csrfToken: token.value), token.isNew)
    }

    private func removalPage(_ row: PortfolioView.TradeRow?, id: String, portfolio: String, notice: String? = nil, status: HTTPResponse.Status,
                             context: PortfolioPageContext) -> Response {
        page(Pages.removeActivity(row, id: id, portfolio: portfolio, notices: notice.map { [$0] } ?? [], context: context.page), status: status, context: context)
    }

    /// `page` with `status`, setting the reader's CSRF cookie when the request had none (the page's forms carry its token).
    private func page(_ page: String, status: HTTPResponse.Status, context: PortfolioPageContext) -> Response {
        var response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        if context.newToken { response.headers[.setCookie] = CSRF.setCookie(context.page.csrfToken) }
        return response
    }
}
