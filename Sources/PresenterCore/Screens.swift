import Bus
import PresenterViews
import TickwireClients
import Foundation
import Market
import TickwireContract
import Money
import BusContract

/// One screen ready to show: its view as JSON, the same view as an HTML page, and the HTTP status.
public struct RenderedScreen: Sendable {
    /// 200, or 400/404/503 for a bad request, a missing thing or an unavailable upstream.
    public var status: Int
    /// The view, as the REP `view` method and `GET /api/views/<screen>` return it.
    public var view: ScreenView
    /// The page a browser shows.
    public var html: String
}

/// Every screen as a page: the view ``ScreenBuilder`` builds, rendered as HTML with its HTTP status.
struct Screens: Sendable {
    let builder: ScreenBuilder

    /// The screen `name` with `parameters` as a page for `page`'s locale and currency; never throws:
    /// a failure is a page that says what went wrong, with the HTTP status that fits.
    func render(_ name: String, parameters: [String: String], page: PageContext, notices: [String] = []) async -> RenderedScreen {
        let context = ViewContext(locale: page.locale, currency: page.currency, now: page.now)
        do {
            let view = try await builder.view(name, parameters: parameters, context: context, notices: notices)
            return RenderedScreen(status: 200, view: view, html: Pages.page(view, context: page))
        } catch let error as ViewError {
            return failure(400, "Bad request", error.description, page: page, context: context)
        } catch let error as RPCError where error.code == -32001 {
            return failure(404, "Not found", error.message, page: page, context: context)
        } catch let error as RPCError where error.code == -32602 {
            return failure(400, "Bad request", error.message, page: page, context: context)
        } catch {
            return failure(503, "Unavailable", ScreenBuilder.describe(error), page: page, context: context)
        }
    }

    private func failure(_ status: Int, _ title: String, _ message: String, page: PageContext, context: ViewContext) -> RenderedScreen {
        let view = ErrorView.make(title: title, message: message, lastGood: nil, context: context)
        return RenderedScreen(status: status, view: .error(view), html: Pages.error(view, context: page))
    }
}
