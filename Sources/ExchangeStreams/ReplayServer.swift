import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// What a ``ReplayServer`` does on one connection, step by step.
public enum ReplayStep: Sendable, Hashable {
    /// Sends one text message.
    case send(String)
    /// Sends the first half of a text message as an unfinished frame, then drops the TCP connection.
    case dropMidMessage(String)
    /// Waits.
    case pause(Duration)
    /// Closes the websocket properly.
    case close
}

/// A local websocket server that plays recorded exchange sessions (the `test` clients' server, and the tests'
/// server that drops connections): the n-th connection (from 0) gets `script(n)`, then, unless it ends in a close or
/// a drop, stays open until the client leaves. What clients send is recorded.
public final class ReplayServer: Sendable {
    /// `ws://127.0.0.1:<port>/`.
    public let url: String
    private let task: Task<Void, any Error>
    private let state: ReplayState

    private init(url: String, task: Task<Void, any Error>, state: ReplayState) {
        self.url = url
        self.task = task
        self.state = state
    }

    /// How many clients have connected.
    public var connections: Int { state.mutex.withLock { $0.connections } }
    /// Every text message clients sent, in order.
    public var received: [String] { state.mutex.withLock { $0.received } }

    /// Starts a server on 127.0.0.1 at `port` (0: any free port) that plays `script(n)` to the n-th connection.
    public static func start(port: Int = 0, logger: Logger, script: @escaping @Sendable (_ connection: Int) -> [ReplayStep]) async throws -> ReplayServer {
        let state = ReplayState()
        let (ports, portInput) = AsyncStream<Int>.makeStream()
        let router = Router()
        router.get("/") { _, _ in "a recorded exchange session: connect with a websocket\n" }
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade { _, channel, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    let index = state.mutex.withLock { state -> Int in
                        state.connections += 1
                        return state.connections - 1
                    }
                    let player = Task {
                        for step in script(index) {
                            switch step {
                            case .send(let text):
                                try await outbound.write(.text(text))
                            case .dropMidMessage(let text):
                                let bytes = Array(text.utf8)
                                let frame = WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(bytes: bytes.prefix(max(bytes.count / 2, 1))))
                                try await outbound.write(.custom(frame))
                                try await channel.close()
                                return
                            case .pause(let duration):
                                try await Task.sleep(for: duration)
                            case .close:
                                try await outbound.close(.normalClosure, reason: nil)
                                return
                            }
                        }
                    }
                    defer { player.cancel() }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { state.mutex.withLock { $0.received.append(text) } }
                    }
                }
            },
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "replay"),
            onServerRunning: { channel in
                portInput.yield(channel.localAddress?.port ?? port)
                portInput.finish()
            },
            logger: logger
        )
        let task = Task { try await app.run() }
        var bound: Int?
        for await port in ports {
            bound = port
            break
        }
        guard let bound else {
            task.cancel()
            throw ReplayServerError.notStarted
        }
        return ReplayServer(url: "ws://127.0.0.1:\(bound)/", task: task, state: state)
    }

    /// Stops the server.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// What a ``ReplayServer`` has seen.
private final class ReplayState: Sendable {
    struct State {
        var connections = 0
        var received: [String] = []
    }

    let mutex = Mutex(State())
}

/// Why a ``ReplayServer`` did not start.
public enum ReplayServerError: Error, CustomStringConvertible {
    /// The server stopped before it listened.
    case notStarted

    public var description: String { "the replay server stopped before it listened" }
}
