import BusContract
import Foundation
import Logging
import Metrics
import Synchronization
import TickwireContract

/// Where a plugin is: `--plugin NAME=REP[,PUB]` (repeatable) or `TICKWIRE_PRESENTER_PLUGINS` (entries separated by spaces).
public struct PluginEndpoint: Sendable, Equatable {
    /// The plugin's name, its page's path (`/plugins/<name>`): 1 to 32 characters, a lower-case letter first, then
    /// lower-case letters, digits, `-` and `_`.
    public var name: String
    /// Its JSON-RPC endpoint.
    public var rep: String
    /// Its stream's endpoint; none: its page is not updated live.
    public var pub: String?

    /// An endpoint.
    public init(name: String, rep: String, pub: String? = nil) {
        self.name = name
        self.rep = rep
        self.pub = pub
    }

    /// The environment variable of the plugins, entries separated by spaces.
    public static let environmentVariable = "TICKWIRE_PRESENTER_PLUGINS"

    /// One `NAME=REP[,PUB]`; throws a sentence saying what is wrong and what an entry looks like.
    public static func parse(_ entry: String) throws -> Self {
        let example = "e.g. notes=tcp://127.0.0.1:7701,tcp://127.0.0.1:7702"
        let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { throw PluginEndpointError("\"\(entry)\" is not NAME=REP[,PUB] (\(example))") }
        let name = parts[0]
        guard isValidName(name) else {
            throw PluginEndpointError("plugin name \"\(name)\" must be 1 to 32 characters, a lower-case letter first, then lower-case letters, digits, - or _")
        }
        let endpoints = parts[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard endpoints.count <= 2 else { throw PluginEndpointError("plugin \(name): \"\(parts[1])\" is not REP or REP,PUB (\(example))") }
        for endpoint in endpoints where !isEndpoint(endpoint) {
            throw PluginEndpointError("plugin \(name): \"\(endpoint)\" is not a ZeroMQ endpoint (tcp://HOST:PORT, ipc://PATH or inproc://NAME)")
        }
        return Self(name: name, rep: endpoints[0], pub: endpoints.count == 2 ? endpoints[1] : nil)
    }

    /// The entries of `--plugin` (each one entry), else of the environment's `TICKWIRE_PRESENTER_PLUGINS` (entries separated
    /// by spaces); throws on a malformed entry or a name given twice.
    public static func parse(flags: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [Self] {
        let entries = flags.isEmpty
            ? (environment[environmentVariable] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            : flags
        let endpoints = try entries.map(parse)
        var seen: Set<String> = []
        for endpoint in endpoints where !seen.insert(endpoint.name).inserted {
            throw PluginEndpointError("plugin \(endpoint.name) is given twice")
        }
        return endpoints
    }

    /// Whether `name` is a plugin's name.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func isEndpoint(_ text: String) -> Bool {
        ["tcp://", "ipc://", "inproc://"].contains { text.hasPrefix($0) && text.count > $0.count }
    }
}

/// A malformed `--plugin` or `TICKWIRE_PRESENTER_PLUGINS` entry.
public struct PluginEndpointError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A plugin the presenter shows: its name and its client.
public struct PluginUpstream: Sendable {
    /// The plugin's name (``PluginEndpoint/name``).
    public var name: String
    /// Its client.
    public var client: PluginClient

    /// A plugin.
    public init(name: String, client: PluginClient) {
        self.name = name
        self.client = client
    }
}

/// The plugins the presenter shows, and which of them answer now: it asks each for its ``Panel`` every
/// ``pollInterval`` (giving up after ``panelDeadline``); while one answers the navigation links its page, titled as
/// its panel, and while it does not there is no link (its page asks it anew when loaded). It follows each plugin's
/// stream at its panel's topics and tells the plugin's open page (a `changed` event of kind ``kind(of:)``) when a
/// message comes, and when the plugin comes or goes.
final class Plugins: Sendable {
    /// How often each plugin is asked for its panel.
    static let pollInterval = Duration.seconds(2)
    /// How long an answer is waited for.
    static let panelDeadline = Duration.seconds(1)

    /// The plugins, in the order given.
    let upstreams: [PluginUpstream]
    private let broadcast: PriceBroadcast
    private let logger: Logger

    private struct State {
        /// The panel of each plugin that answered its last ask.
        var live: [String: Panel] = [:]
        /// The topics of each plugin's last panel (kept while it is away, so its stream is followed on).
        var topics: [String: [String]] = [:]
    }

    private let state = Mutex(State())

    init(_ upstreams: [PluginUpstream], broadcast: PriceBroadcast, logger: Logger) {
        self.upstreams = upstreams
        self.broadcast = broadcast
        self.logger = logger
    }

    /// The kind of change (``StateWatch``) that tells plugin `name`'s page to fetch itself again.
    static func kind(of name: String) -> String { "plugin:\(name)" }

    /// The path of plugin `name`'s page.
    static func path(of name: String) -> String { "/plugins/\(name)" }

    /// The navigation's links of the plugins that answer, in the order given.
    func links() -> [Layout.Link] {
        let live = state.withLock { $0.live }
        return upstreams.compactMap { upstream in live[upstream.name].map { Layout.Link(path: Self.path(of: upstream.name), title: $0.title) } }
    }

    /// The plugin `name`, if the presenter shows one so named.
    func upstream(_ name: String) -> PluginUpstream? { upstreams.first { $0.name == name } }

    /// `health` with each plugin among its upstreams, for information only (`plugin:<name>`: `ok` while it answers, else
    /// that it is not running): the status stays what the services make it, as a plugin that is away degrades nothing.
    func health(_ health: Health) -> Health {
        var health = health
        let live = state.withLock { $0.live }
        for upstream in upstreams {
            health.upstreams["plugin:\(upstream.name)"] = live[upstream.name] != nil ? "ok" : "not running (a plugin: information only)"
        }
        return health
    }

    /// Asks plugin `name` for its panel now, noting whether it answered; throws what went wrong when it did not.
    @discardableResult
    func refresh(_ upstream: PluginUpstream) async throws -> Panel {
        do {
            let panel = try await upstream.client.panel(.now + Self.panelDeadline)
            noteAnswer(upstream.name, panel)
            return panel
        } catch {
            noteSilence(upstream.name, error)
            throw error
        }
    }

    /// Asks every plugin for its panel every ``pollInterval`` and follows their streams, until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for upstream in upstreams {
                group.addTask {
                    while !Task.isCancelled {
                        _ = try? await self.refresh(upstream)
                        try? await Task.sleep(for: Self.pollInterval)
                    }
                }
                group.addTask { await self.follow(upstream) }
            }
        }
    }

    /// Follows `upstream`'s stream at its panel's topics (again when they change), telling its page of each message.
    private func follow(_ upstream: PluginUpstream) async {
        while !Task.isCancelled {
            guard let topics = state.withLock({ $0.topics[upstream.name] }), !topics.isEmpty else {
                try? await Task.sleep(for: Self.pollInterval)
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in upstream.client.changes(topics) { self.broadcast.send(changed: [Self.kind(of: upstream.name)]) }
                }
                group.addTask {
                    while !Task.isCancelled, self.state.withLock({ $0.topics[upstream.name] }) == topics {
                        try? await Task.sleep(for: Self.pollInterval)
                    }
                }
                await group.next()
                group.cancelAll()
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func noteAnswer(_ name: String, _ panel: Panel) {
        let before = state.withLock { state in
            defer {
                state.live[name] = panel
                state.topics[name] = panel.topics
            }
            return state.live[name]
        }
        if before == nil { logger.info("plugin answers", metadata: ["plugin": "\(name)", "title": "\(panel.title)"]) }
        if before?.title != panel.title { broadcast.send(changed: [Self.kind(of: name)]) }
    }

    private func noteSilence(_ name: String, _ error: any Error) {
        let wasLive = state.withLock { $0.live.removeValue(forKey: name) != nil }
        guard wasLive else { return }
        logger.warning("plugin not answering", metadata: ["plugin": "\(name)", "error": "\(error)"])
        Counter(label: "tickwire_presenter_plugin_lost_total", dimensions: [("plugin", name)]).increment()
        broadcast.send(changed: [Self.kind(of: name)])
    }
}
