import Bus
import BusContract
import Foundation
import Synchronization
import TickwireClients
import TickwireStack
import TickwireContract

/// One plugin as the dashboard sees it: its page (``PluginAPI/panel``), a call of any of its methods (what a form
/// of that page submits), and the topics of its stream that change the page.
public struct PluginClient: Sendable {
    /// `panel`: the plugin's page now; gives up at the deadline.
    public var panel: @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Panel
    /// Calls `method` with `params` (a JSON object), answering what the plugin said.
    public var call: @Sendable (_ method: String, _ params: PluginParams) async throws -> PluginAnswer
    /// The topics of the messages the plugin publishes under `prefixes`, as they come (a snapshot taken after the
    /// plugin was away, or restarted, as an empty topic); it ends when its reader stops.
    public var changes: @Sendable (_ prefixes: [String]) -> AsyncStream<String>

    /// A client from its closures.
    public init(
        panel: @escaping @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Panel,
        call: @escaping @Sendable (_ method: String, _ params: PluginParams) async throws -> PluginAnswer,
        changes: @escaping @Sendable (_ prefixes: [String]) -> AsyncStream<String>
    ) {
        self.panel = panel
        self.call = call
        self.changes = changes
    }
}

/// The params of a plugin's method: a JSON object of strings and whole numbers, built from a form's fields.
public struct PluginParams: Encodable, Sendable, Equatable {
    /// One param's value.
    public enum Value: Sendable, Equatable {
        /// A JSON string (text, a decimal, a choice, a hidden value).
        case string(String)
        /// A JSON number, whole.
        case integer(Int64)
    }

    /// The params by name.
    public var values: [String: Value]

    /// Params of `values`.
    public init(_ values: [String: Value] = [:]) { self.values = values }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): try container.encode(text, forKey: Key(stringValue: name))
            case .integer(let number): try container.encode(number, forKey: Key(stringValue: name))
            }
        }
    }
}

/// What a plugin's method answered, as far as the dashboard tells the reader: its text when it is a JSON string.
public struct PluginAnswer: Decodable, Sendable, Equatable {
    /// The answer's text, if it was a string.
    public var text: String?

    /// An answer saying `text`.
    public init(text: String? = nil) { self.text = text }

    public init(from decoder: any Decoder) throws {
        text = try? decoder.singleValueContainer().decode(String.self)
    }
}

extension PluginClient {
    /// How long a `call` may take before the dashboard gives up on it.
    public static let callTimeout = Duration.seconds(5)

    /// The plugin `name` at `rep` (JSON-RPC), and at `pub` (its stream; none: its page is not updated live), through
    /// `connection` (with its CURVE keys, the plugin's public key being `public/<name>.key`).
    public static func live(_ connection: LiveConnection, name: String, rep: String, pub: String?) throws -> Self {
        let panels = try connection.rpc(rep, service: name, timeout: .seconds(1))
        let calls = try connection.rpc(rep, service: name, timeout: callTimeout)
        return Self(
            panel: { deadline in try await panels.call(PluginAPI.panel, NoParams(), deadline: deadline) },
            call: { method, params in
                try await calls.call(method, params: params, as: PluginAnswer.self, deadline: .now + callTimeout)
            },
            changes: { prefixes in
                guard let pub, !prefixes.isEmpty else { return AsyncStream { _ in } }
                let events: StreamEvents<String>
                do {
                    events = try connection.stream(name, pub: pub, rep: rep, prefixes: prefixes) { $0.topic.description }
                } catch {
                    connection.logger.warning("cannot follow a plugin's stream", metadata: ["plugin": "\(name)", "pub": "\(pub)", "error": "\(error)"])
                    return AsyncStream { _ in }
                }
                return AsyncStream { continuation in
                    let task = Task {
                        for await event in events {
                            switch event {
                            case .snapshot: continuation.yield("")
                            case .update(let update): continuation.yield(update.value)
                            case .removed(let topic): continuation.yield(topic.description)
                            case .unavailable: continue
                            }
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
            })
    }

    /// Every closure throws, naming itself (the plugin is not running); its stream says nothing.
    public static let failing = Self(
        panel: { _ in throw RPCError.unavailable("PluginClient.panel is not implemented here") },
        call: { method, _ in throw RPCError.unavailable("PluginClient.call(\(method)) is not implemented here") },
        changes: { _ in AsyncStream { _ in } })

    /// A plugin in memory that always shows `panel`, answers every call with `answer`, and publishes nothing.
    public static func mock(panel: Panel, answer: PluginAnswer = PluginAnswer()) -> Self {
        mock(MockPlugin(panel: panel, answer: { _ in answer }))
    }

    /// The plugin `plugin` in memory, which a test starts, stops, changes and publishes on.
    public static func mock(_ plugin: MockPlugin) -> Self {
        Self(
            panel: { _ in try plugin.currentPanel() },
            call: { method, params in try plugin.answer(method, params) },
            changes: { prefixes in plugin.listen(prefixes) })
    }
}

/// A plugin in memory for ``PluginClient/mock(_:)``: its panel (nil while it is not running), the calls it had, what
/// it answers them, and the messages it publishes.
public final class MockPlugin: Sendable {
    /// One call it had.
    public struct Call: Sendable, Equatable {
        /// The method.
        public var method: String
        /// The params.
        public var params: PluginParams
    }

    private struct Listener {
        let prefixes: [String]
        let continuation: AsyncStream<String>.Continuation
    }

    private struct State {
        var panel: Panel?
        var calls: [Call] = []
        var listeners: [UUID: Listener] = [:]
    }

    private let state: Mutex<State>
    private let respond: @Sendable (Call) throws -> PluginAnswer

    /// A plugin showing `panel` (nil: not running) whose calls `answer` answers (or throws the plugin's error for).
    public init(panel: Panel?, answer: @escaping @Sendable (Call) throws -> PluginAnswer = { _ in PluginAnswer() }) {
        state = Mutex(State(panel: panel))
        respond = answer
    }

    /// Its page; setting nil stops it (it answers nothing), setting a panel starts it or changes its page.
    public var panel: Panel? {
        get { state.withLock { $0.panel } }
        set { state.withLock { $0.panel = newValue } }
    }

    /// The calls it had, oldest first.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Publishes a message on `topic` to every listener whose prefixes it matches.
    public func publish(topic: String) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners where listener.prefixes.contains(where: topic.hasPrefix) { listener.continuation.yield(topic) }
    }

    fileprivate func currentPanel() throws -> Panel {
        guard let panel else { throw RPCClientError.unreachable(endpoint: "mock", method: PluginAPI.panel.name, attempts: 1, timeout: .seconds(1)) }
        return panel
    }

    fileprivate func answer(_ method: String, _ params: PluginParams) throws -> PluginAnswer {
        guard panel != nil else { throw RPCClientError.unreachable(endpoint: "mock", method: method, attempts: 1, timeout: .seconds(1)) }
        let call = Call(method: method, params: params)
        state.withLock { $0.calls.append(call) }
        return try respond(call)
    }

    fileprivate func listen(_ prefixes: [String]) -> AsyncStream<String> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream()
        state.withLock { $0.listeners[id] = Listener(prefixes: prefixes, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }
}
