import Bus
import BusContract
import ChildProcesses
import Foundation
import Logging
import Synchronization
import Testing
import TickwireContract
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plugin the presenter knows only from `--plugin`: served here, in the test process, by the bus's own RPCServer and
/// Publisher on ipc://, it answers `panel` (a table and a form), records the calls of `notes.add` and publishes `note.`
/// messages. The real presenter executable links its page, calls it from its form, reloads the page on its messages, and
/// drops the link (with no error anywhere) once it stops.
@Suite("Plugin panels, end to end (issue 30)", .serialized)
struct PluginPanelEndToEndTests {
    /// The params of `notes.add` as the fake plugin reads them: `count` must come as a JSON number.
    struct AddNote: Codable, Sendable, Equatable {
        var text: String
        var amount: String?
        var count: Int?
    }

    /// The notes a fake plugin was given, oldest first.
    final class Notes: Sendable {
        private let list = Mutex<[AddNote]>([])

        var all: [AddNote] { list.withLock { $0 } }

        func add(_ note: AddNote) { list.withLock { $0.append(note) } }
    }

    /// The fake plugin: its panel lists the notes added, its form adds one.
    final class FakePlugin: Sendable {
        let notes = Notes()
        let server: RPCServer
        let publisher: Publisher
        private let tasks = Mutex<[Task<Void, Never>]>([])

        init(context: ZMQContext, rep: String, pub: String) throws {
            let logger = Logger(label: "fake-plugin")
            publisher = try Publisher(context: context, service: "notes", endpoints: [pub], logger: logger)
            var methods = RPCMethods()
            let notes = notes, publisher = publisher
            methods.register(PluginAPI.panel) {
                let rows = notes.all.map { PanelRow(cells: [$0.text, $0.amount ?? "", $0.count.map(String.init) ?? ""]) }
                return Panel(title: "Notes", summary: "A plugin served by the test.", sections: [
                    PanelSection(title: "Notes", table: PanelTable(columns: ["Text", "Amount", "Count"], rows: rows, empty: "No notes yet.")),
                    PanelSection(title: "Add a note", form: PanelForm(method: "notes.add", submit: "Add", fields: [
                        PanelField(name: "text", label: "Text", required: true),
                        PanelField(name: "amount", label: "Amount", kind: .decimal),
                        PanelField(name: "count", label: "Count", kind: .integer),
                        PanelField(name: "comment", label: "Comment"),
                    ])),
                ], topics: ["note."])
            }
            methods.register(RPCMethod<AddNote, String>("notes.add", changesState: true)) { note in
                notes.add(note)
                return "added"
            }
            methods.register(StandardAPI.snapshot) { publisher.snapshot(prefix: $0.prefix) }
            server = try RPCServer(context: context, service: "notes", endpoints: [rep], methods: methods, logger: logger)
        }

        func start() {
            let server = server, publisher = publisher
            tasks.withLock { $0 = [Task { await server.run() }, Task { try? await publisher.run() }] }
        }

        func stop() async {
            for task in tasks.withLock({ $0 }) { task.cancel() }
            await publisher.close()
        }
    }

    @Test func aPluginsPageFromItsPanel() async throws {
        let endpoints = try Endpoints()
        let rep = "ipc://\(endpoints.directory.path)/notes-rep", pub = "ipc://\(endpoints.directory.path)/notes-pub"
        let context = try ZMQContext()
        let plugin = try FakePlugin(context: context, rep: rep, pub: pub)
        plugin.start()
        let presenter = try await ServiceProcess("presenter", [
            "--rep", endpoints.presenterRep, "--http", "http://127.0.0.1:0",
            "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
            "--converter-pub", endpoints.converterPub, "--converter-rep", endpoints.converterRep,
            "--portfolio-pub", endpoints.portfolioPub, "--portfolio-rep", endpoints.portfolioRep,
            "--plugin", "notes=\(rep),\(pub)",
        ], in: endpoints.directory)
        var listener: ChildProcess?
        do {
            listener = try await check(presenter: presenter, plugin: plugin, endpoints: endpoints)
        } catch {
            Issue.record("\(error)\n\(presenter.log.suffix(3000))")
        }
        if let listener { _ = await listener.stop() }
        await plugin.stop()
        #expect(await presenter.stop() == 0)
    }

    private func check(presenter: ServiceProcess, plugin: FakePlugin, endpoints: Endpoints) async throws -> ChildProcess {
        var found: URL?
        _ = await eventually { found = FullStack.dashboardURL(in: presenter.log); return found != nil }
        let base = try #require(found, "the presenter's dashboard: \(presenter.log.suffix(2000))")
        // Cookies by hand: the CSRF token is read from the page's Set-Cookie and sent with the form alone.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        func get(_ path: String) async throws -> (status: Int, text: String, cookie: String?) {
            let (data, response) = try await session.data(from: URL(string: path, relativeTo: base)!)
            let http = response as? HTTPURLResponse
            return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "Set-Cookie"))
        }

        // The link, titled as the panel, on every page, within the presenter's 2 s poll.
        #expect(await eventually { (try? await get("/coins").text.contains("<a href=\"/plugins/notes\">Notes</a>")) ?? false },
                "no link to the plugin's page")
        let page = try await get("/plugins/notes")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Notes</h1>") && page.text.contains("No notes yet.") && page.text.contains("data-method=\"notes.add\""))
        let token = String(try #require(page.cookie?.split(separator: ";").first?.split(separator: "=").last))

        // A page's event stream, to hear the plugin's messages.
        let changes = endpoints.directory.appendingPathComponent("plugin-changes.out")
        #expect(FileManager.default.createFile(atPath: changes.path, contents: nil))
        let listener = try await ChildProcess.start(
            "curl", ["-sN", URL(string: "/events?currency=USD&prices=0", relativeTo: base)!.absoluteString],
            output: changes, error: URL(fileURLWithPath: "/dev/null"))
        #expect(await eventually { ((try? String(contentsOf: changes, encoding: .utf8)) ?? "").contains("event: changed") })

        // The form's post calls notes.add with typed params (the empty comment left out), then shows the page saying so.
        var form = URLRequest(url: URL(string: "/plugins/notes/call", relativeTo: base)!)
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.setValue("tickwire_csrf=\(token)", forHTTPHeaderField: "Cookie")
        form.httpBody = Data("csrf=\(token)&method=notes.add&p.text=buy+%3Cmore%3E&p.amount=12.50&p.count=3&p.comment=".utf8)
        let (answer, response) = try await session.data(for: form)
        let shown = String(decoding: answer, as: UTF8.self)
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && response.url?.query == "done=notes.add", "\(shown.prefix(2000))")
        #expect(shown.contains("<li>Add: done.</li>") && shown.contains("<td>buy &lt;more&gt;</td><td>12.50</td><td>3</td>"))
        #expect(plugin.notes.all == [AddNote(text: "buy <more>", amount: "12.50", count: 3)])

        // In Chromium, light and dark: the page as built, no console error (the Content-Security-Policy allows no inline
        // script or style); screenshots go to .build/screenshots/plugins for a person to look at.
        let executable = try chromiumExecutable()
        let url = URL(string: "/plugins/notes", relativeTo: base)!.absoluteString
        // On a loaded machine the panel's 1 s deadline can pass while Chromium starts: its page then says so (503) and
        // is loaded again, at most three times.
        var (dom, log) = try await Chromium.run(executable, ["--dump-dom", url], in: endpoints.directory)
        for _ in 1..<3 where dom.contains("The plugin notes is not running") {
            (dom, log) = try await Chromium.run(executable, ["--dump-dom", url], in: endpoints.directory)
        }
        #expect(dom.contains("<td>buy &lt;more&gt;</td>") && dom.contains("class=\"card plugin-form\""), "\(dom.prefix(3000))")
        let console = log.split(separator: "\n").filter { $0.contains(":CONSOLE(") || $0.contains("Failed to load resource") }
        #expect(console.isEmpty, "\(console.joined(separator: "\n"))")
        let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/plugins")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        for (name, flags) in [("notes-light", [String]()), ("notes-dark", ["--force-dark-mode"])] {
            let file = screenshots.appendingPathComponent("\(name).png")
            _ = try await Chromium.run(executable, flags + ["--hide-scrollbars", "--window-size=1280,900", "--screenshot=\(file.path)", url],
                                       in: endpoints.directory)
            #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(name)")
        }

        // A message on the panel's topic: the page is told to fetch itself again.
        let before = ((try? String(contentsOf: changes, encoding: .utf8)) ?? "").count
        let heard = await eventually {
            _ = try? plugin.publisher.publish("buy <more>", on: try Topic("note.added.1"))
            let text = ((try? String(contentsOf: changes, encoding: .utf8)) ?? "").dropFirst(before)
            return text.contains("\"plugin:notes\"")
        }
        #expect(heard, "no changed event for the plugin's page: \(((try? String(contentsOf: changes, encoding: .utf8)) ?? "").suffix(1000))")

        // The plugin stops: the link goes, its page says it is not running, and every other page answers as before.
        await plugin.stop()
        #expect(await eventually(within: .seconds(15)) { (try? await get("/coins").text.contains("/plugins/notes")) == false },
                "the link stayed after the plugin stopped")
        let gone = try await get("/plugins/notes")
        #expect(gone.status == 503 && gone.text.contains("The plugin notes is not running"))
        for path in ["/coins", "/assets", "/portfolio", "/books"] {
            let other = try await get(path)
            #expect(other.status == 200, "\(path)")
            #expect(!other.text.contains("notes") && !other.text.contains("id=\"error\""), "\(path): \(other.text.prefix(1000))")
        }
        let health = try await get("/health")
        // Health lists it for information (the presenter alone, its services absent, is degraded anyway).
        #expect(health.text.contains("\"plugin:notes\":\"not running (a plugin: information only)\""), "\(health.text)")
        let errors = presenter.log.split(separator: "\n").filter { $0.contains(" error tickwire") || $0.contains(" critical tickwire") }
        #expect(errors.isEmpty, "the presenter logged errors: \(errors)")
        return listener
    }
}
