import Bus
import BusContract
import Foundation
import Synchronization
import Hummingbird
import HummingbirdTesting
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract
@testable import PresenterCore

/// The dashboard's generic plugin pages (issue 30): a plugin that answers `panel` gets a link and a page built from its
/// panel, its forms call its methods with typed params, and one that does not answer loses its link and nothing else.
@Suite("Plugin panels")
struct PluginPanelTests {
    /// A panel with every element, its texts hostile where a plugin could make them so.
    static let panel = Panel(
        title: "Notes <b>&", summary: "Kept by \"notes\" <i>", sections: [
            PanelSection(
                title: "Rules <h2>", text: "Add one below & see 'it'.",
                table: PanelTable(columns: ["Asset", "When <x>"], rows: [
                    PanelRow(cells: ["BTC", "above 1 <script>"], action: PanelForm(
                        method: "notes.remove", submit: "Remove", fields: [PanelField(name: "id", kind: .hidden, value: "r1\"><x>")], confirm: true)),
                    PanelRow(cells: ["ETH"]),
                ])),
            PanelSection(title: "Fired", table: PanelTable(columns: ["When"], rows: [], empty: "No alert <yet>.")),
            PanelSection(title: "Add", form: PanelForm(method: "notes.add", submit: "Add <it>", fields: [
                PanelField(name: "asset", label: "Asset", kind: .text, required: true, placeholder: "BTC\"<"),
                PanelField(name: "threshold", label: "Threshold", kind: .decimal),
                PanelField(name: "count", label: "Count", kind: .integer),
                PanelField(name: "side", label: "Side", kind: .select, value: "below", options: ["above", "below", "<x>"]),
                PanelField(name: "note", label: "Note", kind: .text),
                PanelField(name: "source", kind: .hidden, value: "dashboard"),
            ])),
        ], topics: ["note."])

    static func presenter(_ plugin: MockPlugin) throws -> InProcessPresenter {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = ConverterClient.mock(fetcher: fetcher)
        return try InProcessPresenter(
            portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher,
            plugins: [PluginUpstream(name: "notes", client: .mock(plugin))])
    }

    static let link = "<a href=\"/plugins/notes\">Notes &lt;b&gt;&amp;</a>"

    /// While the plugin answers, every page links its page; once it stops, the link goes, its page says it is not running
    /// (503) and every other page is as before; when it is back, so is the link.
    @Test func theLinkComesAndGoes() async throws {
        let plugin = MockPlugin(panel: Self.panel)
        try await Self.presenter(plugin).test { client in
            #expect(await poll { (try? await client.execute(uri: "/coins", method: .get).text.contains(Self.link)) ?? false })
            let books = try await client.execute(uri: "/books", method: .get)
            #expect(books.text.contains(Self.link))
            plugin.panel = nil
            #expect(await poll { (try? await client.execute(uri: "/coins", method: .get).text.contains("/plugins/notes")) == false })
            let page = try await client.execute(uri: "/plugins/notes", method: .get)
            #expect(page.status == .serviceUnavailable)
            #expect(page.text.contains("The plugin notes is not running"))
            #expect(page.text.contains("<section id=\"error\""), "the page fetches itself again until the plugin is back")
            for path in ["/coins", "/assets", "/portfolio", "/books"] {
                let other = try await client.execute(uri: path, method: .get)
                #expect(other.status == .ok, "\(path)")
                #expect(!other.text.contains("notes"), "\(path) says nothing of the plugin")
            }
            let health = try await client.execute(uri: "/health", method: .get)
            let report = try JSONDecoder().decode(Health.self, from: Data(buffer: health.body))
            #expect(health.status == .ok && report.status == "ok", "a plugin away degrades nothing")
            #expect(report.upstreams["plugin:notes"] == "not running (a plugin: information only)")
            plugin.panel = Self.panel
            #expect(await poll { (try? await client.execute(uri: "/coins", method: .get).text.contains(Self.link)) ?? false })
            #expect(try await client.execute(uri: "/plugins/notes", method: .get).status == .ok)
            let back = try JSONDecoder().decode(Health.self, from: Data(buffer: try await client.execute(uri: "/health", method: .get).body))
            #expect(back.upstreams["plugin:notes"] == "ok")
            #expect(try await client.execute(uri: "/plugins/other", method: .get).status == .notFound)
        }
    }

    /// A plugin that missed the dashboard's last poll but answers now shows its page: the page asks it, rather than
    /// saying it is not running until the next poll.
    @Test func aPageAsksAPluginThatMissedTheLastPoll() async throws {
        let plugin = MockPlugin(panel: Self.panel)
        try await Self.presenter(plugin).test { client in
            #expect(await poll { (try? await client.execute(uri: "/coins", method: .get).text.contains(Self.link)) ?? false })
            plugin.panel = nil
            #expect(await poll { (try? await client.execute(uri: "/coins", method: .get).text.contains("/plugins/notes")) == false })
            plugin.panel = Self.panel
            let page = try await client.execute(uri: "/plugins/notes", method: .get)
            #expect(page.status == .ok && page.text.contains("<h1>Notes &lt;b&gt;&amp;</h1>"), "\(page.text.prefix(2000))")
        }
    }

    /// Of two plugins, the one that answers is linked (in the order given) and the failing one is not; its page says why.
    @Test func onlyAnsweringPluginsAreLinked() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = ConverterClient.mock(fetcher: fetcher)
        let presenter = try InProcessPresenter(
            portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher,
            plugins: [PluginUpstream(name: "away", client: .failing),
                      PluginUpstream(name: "here", client: .mock(panel: Panel(title: "Here", sections: [PanelSection(text: "Hello.")])))])
        try await presenter.test { client in
            #expect(await poll { (try? await client.execute(uri: "/assets", method: .get).text.contains("<a href=\"/plugins/here\">Here</a>")) ?? false })
            #expect(!(try await client.execute(uri: "/assets", method: .get).text.contains("/plugins/away")))
            let here = try await client.execute(uri: "/plugins/here", method: .get)
            #expect(here.status == .ok && here.text.contains("<p class=\"plugin-text\">Hello.</p>"))
            let away = try await client.execute(uri: "/plugins/away", method: .get)
            #expect(away.status == .serviceUnavailable && away.text.contains("The plugin away is not running"))
        }
    }

    /// The page shows every element of the panel, each text escaped, its forms posting to the plugin's call with the
    /// reader's CSRF token; it follows the plugin's changes, not prices.
    @Test func thePageRendersEveryElement() async throws {
        let context = PageContext(locale: "en_US", currency: "USD", path: "/plugins/notes", now: SampleData.now, csrfToken: "tok")
        let html = Layout.$pluginLinks.withValue([Layout.Link(path: "/plugins/notes", title: Self.panel.title)]) {
            Pages.plugin(Self.panel, name: "notes", notices: ["Add: done."], context: context)
        }
        let expected = [
            "<title>Notes &lt;b&gt;&amp; · Tickwire</title>", "<h1>Notes &lt;b&gt;&amp;</h1>",
            "<a href=\"/plugins/notes\" aria-current=\"page\">Notes &lt;b&gt;&amp;</a>",
            "<p class=\"muted plugin-summary\">Kept by &quot;notes&quot; &lt;i&gt;</p>",
            "<li>Add: done.</li>",
            "<h2>Rules &lt;h2&gt;</h2>", "<p class=\"plugin-text\">Add one below &amp; see &#39;it&#39;.</p>",
            "<thead><tr><th>Asset</th><th>When &lt;x&gt;</th><th></th></tr></thead>",
            "<tr class=\"plugin-row\" data-row=\"r1&quot;&gt;&lt;x&gt;\"><td>BTC</td><td>above 1 &lt;script&gt;</td><td class=\"row-action\">"
                + "<form class=\"inline plugin-action\" method=\"post\" action=\"/plugins/notes/call\" data-method=\"notes.remove\" data-confirm>"
                + "<input type=\"hidden\" name=\"csrf\" value=\"tok\"><input type=\"hidden\" name=\"method\" value=\"notes.remove\">"
                + "<input type=\"hidden\" name=\"p.id\" value=\"r1&quot;&gt;&lt;x&gt;\"><button type=\"submit\" class=\"link\">Remove</button></form></td></tr>",
            "<tr class=\"plugin-row\" data-row=\"ETH\"><td>ETH</td><td></td><td class=\"row-action\"></td></tr>",
            "<p class=\"muted plugin-empty\">No alert &lt;yet&gt;.</p>",
            "<form class=\"card plugin-form\" method=\"post\" action=\"/plugins/notes/call\" data-method=\"notes.add\">",
            "<label>Asset<input type=\"text\" name=\"p.asset\" placeholder=\"BTC&quot;&lt;\" required></label>",
            "<label>Threshold<input type=\"text\" inputmode=\"decimal\" pattern=\"-?[0-9]+([.][0-9]+)?\" name=\"p.threshold\"></label>",
            "<label>Count<input type=\"number\" step=\"1\" name=\"p.count\"></label>",
            "<label>Side<select name=\"p.side\"><option value=\"\"></option><option value=\"above\">above</option>"
                + "<option value=\"below\" selected>below</option><option value=\"&lt;x&gt;\">&lt;x&gt;</option></select></label>",
            "<input type=\"hidden\" name=\"p.source\" value=\"dashboard\"><button type=\"submit\">Add &lt;it&gt;</button></form>",
            "<script src=\"/static/confirm-forms.js\"></script>",
            "data-refresh-on=\"plugin:notes rates-fetcher converter portfolio\"", "data-prices=\"0\"",
        ]
        for piece in expected { #expect(html.contains(piece), "\(piece)") }
        #expect(!html.contains("<script>") && !html.contains("<b>") && !html.contains("<x>") && !html.contains(" style=\""))
        #expect(Scripts.files["confirm-forms.js"] == Scripts.confirmForms)
    }

    /// A form's post calls its method with params typed by the fields' kinds (an empty field left out, an integer a JSON
    /// number, a decimal a string), then goes back to the page, which says it was done.
    @Test func aFormCallsThePluginWithTypedParams() async throws {
        let plugin = MockPlugin(panel: Self.panel)
        try await Self.presenter(plugin).test { client in
            #expect(await poll { (try? await client.execute(uri: "/plugins/notes", method: .get).status) == .ok })
            let csrf = try await CSRFToken(from: client, path: "/plugins/notes")
            let called = try await client.execute(uri: "/plugins/notes/call", method: .post, headers: csrf.headers, body: csrf.form([
                ("method", "notes.add"), ("p.asset", "BTC"), ("p.threshold", " 12.50 "), ("p.count", "3"), ("p.side", "above"),
                ("p.note", ""), ("p.source", "dashboard"), ("p.unknown", "x"), ("asset", "ignored"),
            ]))
            #expect(called.status == .seeOther, "\(called.text.prefix(300))")
            #expect(called.headers[.location] == "/plugins/notes?done=notes.add")
            #expect(plugin.calls == [MockPlugin.Call(method: "notes.add", params: PluginParams([
                "asset": .string("BTC"), "threshold": .string("12.50"), "count": .integer(3), "side": .string("above"), "source": .string("dashboard"),
            ]))])
            let back = try await client.execute(uri: "/plugins/notes?done=notes.add", method: .get)
            #expect(back.text.contains("<li>Add &lt;it&gt;: done.</li>"))
            // `?done=` names no text of its own: anything but a method of the page's forms shows no notice.
            for done in ["Your%20account%20was%20closed", "notes.wipe", "health", ""] {
                let page = try await client.execute(uri: "/plugins/notes?done=\(done)", method: .get).text
                #expect(page.contains("Notes &lt;b&gt;&amp;</h1>"), "\(page.prefix(200))")
                #expect(!page.contains(": done."), "done=\(done)")
                #expect(!page.contains("account was closed"))
            }
            let removed = try await client.execute(uri: "/plugins/notes/call", method: .post, headers: csrf.headers,
                                                   body: csrf.form([("method", "notes.remove"), ("p.id", "r1")]))
            #expect(removed.status == .seeOther)
            #expect(plugin.calls.last == MockPlugin.Call(method: "notes.remove", params: PluginParams(["id": .string("r1")])))
        }
    }

    /// A method no form of the panel names, a field that does not fit its kind, a required one left empty and a form
    /// without the CSRF token are refused, and the plugin is not called.
    @Test func refusedCallsCallNothing() async throws {
        let plugin = MockPlugin(panel: Self.panel)
        try await Self.presenter(plugin).test { client in
            #expect(await poll { (try? await client.execute(uri: "/plugins/notes", method: .get).status) == .ok })
            let csrf = try await CSRFToken(from: client, path: "/plugins/notes")
            let refusals: [([(String, String)], String)] = [
                ([("method", "notes.wipe")], "The page of notes has no form that calls &quot;notes.wipe&quot;, so it was not called."),
                ([("method", "health")], "has no form that calls &quot;health&quot;"),
                ([("method", "notes.add"), ("p.asset", "BTC"), ("p.threshold", "12,5")], "Threshold must be a decimal number such as 12.50, got &quot;12,5&quot;."),
                ([("method", "notes.add"), ("p.asset", "BTC"), ("p.threshold", "1e3")], "Threshold must be a decimal number"),
                ([("method", "notes.add"), ("p.asset", "BTC"), ("p.count", "3.5")], "Count must be a whole number, got &quot;3.5&quot;."),
                ([("method", "notes.add"), ("p.asset", "BTC"), ("p.side", "sideways")], "Side must be one of above, below, &lt;x&gt;, got &quot;sideways&quot;."),
                ([("method", "notes.add"), ("p.asset", " ")], "Asset is required."),
            ]
            for (fields, message) in refusals {
                let refused = try await client.execute(uri: "/plugins/notes/call", method: .post, headers: csrf.headers, body: csrf.form(fields))
                #expect(refused.status == .badRequest, "\(fields)")
                #expect(refused.text.contains(message), "\(fields): \(refused.text.prefix(2000))")
                #expect(refused.text.contains("<h1>Notes &lt;b&gt;&amp;</h1>"), "the plugin's page, saying why")
            }
            let forged = try await client.execute(uri: "/plugins/notes/call", method: .post,
                                                  headers: [.contentType: "application/x-www-form-urlencoded"], body: form([("method", "notes.add"), ("p.asset", "BTC")]))
            #expect(forged.status == .forbidden)
            #expect(plugin.calls.isEmpty)
        }
    }

    /// The plugin's own error is shown on its page; a plugin that stopped is a page saying so, and nothing is called.
    @Test func thePluginsErrorAndADeadPlugin() async throws {
        let plugin = MockPlugin(panel: Self.panel) { _ in throw RPCError.invalidParams("unknown asset \"XYZ\" <b>") }
        try await Self.presenter(plugin).test { client in
            #expect(await poll { (try? await client.execute(uri: "/plugins/notes", method: .get).status) == .ok })
            let csrf = try await CSRFToken(from: client, path: "/plugins/notes")
            let failed = try await client.execute(uri: "/plugins/notes/call", method: .post, headers: csrf.headers,
                                                  body: csrf.form([("method", "notes.add"), ("p.asset", "XYZ")]))
            #expect(failed.status == .badRequest)
            #expect(failed.text.contains("<li>Add &lt;it&gt; failed: invalid params: unknown asset &quot;XYZ&quot; &lt;b&gt;</li>"))
            #expect(plugin.calls.count == 1)
            plugin.panel = nil
            let dead = try await client.execute(uri: "/plugins/notes/call", method: .post, headers: csrf.headers,
                                                body: csrf.form([("method", "notes.add"), ("p.asset", "BTC")]))
            #expect(dead.status == .serviceUnavailable)
            #expect(dead.text.contains("The plugin notes is not running") && dead.text.contains("Nothing was called"))
            #expect(plugin.calls.count == 1)
        }
    }

    /// A message on one of the panel's topics tells the plugin's page to fetch itself again (`changed`, kind
    /// `plugin:notes`); one on another topic does not.
    @Test func aMessageOnItsTopicsChangesThePage() async throws {
        let plugin = MockPlugin(panel: Self.panel)
        let presenter = try Self.presenter(plugin)
        try await presenter.test { client in
            #expect(await poll { (try? await client.execute(uri: "/plugins/notes", method: .get).status) == .ok })
            let events = presenter.core.broadcast.subscribe(prices: false)
            let heard = Mutex(0)
            let reader = Task {
                for await event in events {
                    if case .changed(let kinds, _) = event, kinds.contains("plugin:notes") { heard.withLock { $0 += 1 } }
                }
            }
            defer { reader.cancel() }
            // The stream is followed once the plugin's panel (and so its topics) is known: publish until it is heard.
            #expect(await poll {
                plugin.publish(topic: "note.first")
                return heard.withLock { $0 } > 0
            })
            // The note.first messages published while polling may still be arriving: count again once none came for 1 s
            // (300 ms was too short for a loaded 2-core machine: one arrived after it).
            var settled = heard.withLock { $0 }
            while true {
                try await Task.sleep(for: .seconds(1))
                let now = heard.withLock { $0 }
                if now == settled { break }
                settled = now
            }
            heard.withLock { $0 = 0 }
            plugin.publish(topic: "other.1")
            try await Task.sleep(for: .milliseconds(500))
            #expect(heard.withLock { $0 } == 0, "a topic the panel does not name changes nothing")
            plugin.publish(topic: "note.added")
            #expect(await poll { heard.withLock { $0 } == 1 })
        }
    }

    /// `--plugin` entries and `TICKWIRE_PRESENTER_PLUGINS`: NAME=REP[,PUB], names checked, each name once.
    @Test func pluginEndpoints() throws {
        #expect(try PluginEndpoint.parse("notes=tcp://127.0.0.1:7701,ipc:///tmp/notes-pub")
            == PluginEndpoint(name: "notes", rep: "tcp://127.0.0.1:7701", pub: "ipc:///tmp/notes-pub"))
        #expect(try PluginEndpoint.parse("my_plugin-2=ipc:///tmp/rep") == PluginEndpoint(name: "my_plugin-2", rep: "ipc:///tmp/rep"))
        let bad: [(String, String)] = [
            ("notes", "\"notes\" is not NAME=REP[,PUB]"),
            ("Notes=tcp://h:1", "plugin name \"Notes\" must be 1 to 32 characters"),
            ("1notes=tcp://h:1", "plugin name \"1notes\""),
            ("=tcp://h:1", "plugin name \"\""),
            ("\(String(repeating: "n", count: 33))=tcp://h:1", "must be 1 to 32 characters"),
            ("notes=", "plugin notes: \"\" is not a ZeroMQ endpoint"),
            ("notes=http://h:1", "plugin notes: \"http://h:1\" is not a ZeroMQ endpoint"),
            ("notes=tcp://h:1,", "plugin notes: \"\" is not a ZeroMQ endpoint"),
            ("notes=tcp://h:1,tcp://h:2,tcp://h:3", "is not REP or REP,PUB"),
        ]
        for (entry, message) in bad {
            #expect(throws: PluginEndpointError.self, "\(entry)") { try PluginEndpoint.parse(entry) }
            do {
                _ = try PluginEndpoint.parse(entry)
            } catch {
                #expect("\(error)".contains(message), "\(entry): \(error)")
            }
        }
        let environment = [PluginEndpoint.environmentVariable: "  a=tcp://h:1,tcp://h:2   b=ipc:///tmp/b "]
        #expect(try PluginEndpoint.parse(flags: [], environment: environment).map(\.name) == ["a", "b"])
        #expect(try PluginEndpoint.parse(flags: ["c=tcp://h:3"], environment: environment).map(\.name) == ["c"], "the flags win")
        #expect(try PluginEndpoint.parse(flags: [], environment: [:]).isEmpty)
        #expect(throws: PluginEndpointError("plugin a is given twice")) { try PluginEndpoint.parse(flags: ["a=tcp://h:1", "a=tcp://h:2"]) }
    }

    /// Params go on the wire as one JSON object, integers as numbers; an answer's text is read when it is a string.
    @Test func paramsAndAnswersOnTheWire() throws {
        let params = PluginParams(["threshold": .string("12.50"), "count": .integer(3), "asset": .string("BTC")])
        #expect(String(decoding: try Wire.encode(params), as: UTF8.self) == #"{"asset":"BTC","count":3,"threshold":"12.50"}"#)
        struct Reply: Decodable { var result: PluginAnswer }
        #expect(try Wire.decode(Reply.self, from: Data(#"{"result":"rule r1 added"}"#.utf8)).result == PluginAnswer(text: "rule r1 added"))
        #expect(try Wire.decode(Reply.self, from: Data(#"{"result":{"id":"r1","n":[1,2]}}"#.utf8)).result == PluginAnswer())
        #expect(try Wire.decode(Reply.self, from: Data(#"{"result":true}"#.utf8)).result == PluginAnswer())
    }
}
