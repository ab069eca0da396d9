import PresenterViews

extension Pages {
    /// A page whose data has not come yet (`#waiting`): its frame, what it waits for and from which service
    /// (`li.wait[data-service]`, with the service's stream state), and placeholder rows. The page's script
    /// (``Scripts/live``) fetches it again when data arrives and swaps the content in, without a reload.
    public static func waiting(_ view: WaitingView, context: PageContext) -> String {
        let waits = view.waits.map { wait in
            let state = wait.state.map { " <span class=\"wait-state\">\(escapeHTML($0))</span>" } ?? ""
            return "<li class=\"wait\" data-service=\"\(escapeHTML(wait.service))\">\(escapeHTML(wait.text))\(state)</li>"
        }.joined()
        let body = """
            <section id="waiting" class="waiting" aria-busy="true">\
            <div class="waiting-head"><span class="pulse" aria-hidden="true"></span><ul class="waits">\(waits)</ul></div>\
            <p class="muted small">This page fills in by itself as soon as the data comes.</p>\
            <div class="placeholder" aria-hidden="true"><span></span><span></span><span></span><span></span></div></section>
            """
        return Layout.document(title: view.title, context: context, notices: view.notices, dataAge: nil, withoutAge: "No data yet.", body: body)
    }

    /// The title of `screen`'s page, as its complete page has it where that can be told without its data.
    public static func title(_ screen: String, parameters: [String: String]) -> String {
        switch screen {
        case "coin": (parameters["symbol"] ?? "").uppercased()
        case "book": (parameters["book"] ?? "").uppercased().replacing("_", with: " ")
        case "product": "Product \(parameters["sku"] ?? "")"
        case "portfolio": portfolioTitle(ScreenBuilder.portfolioName(parameters["portfolio"]))
        default: screen.prefix(1).uppercased() + screen.dropFirst()
        }
    }
}
