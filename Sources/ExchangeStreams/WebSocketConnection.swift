import Foundation
import HummingbirdWSClient
import Logging

/// One open websocket: the text messages it receives, and a way to send one and to close it. The `messages` stream
/// finishes when the server closes the socket and throws when it drops (a frame cut off mid-message included).
public struct WebSocketConnection: Sendable {
    /// Every text message received, in order.
    public var messages: AsyncThrowingStream<String, any Error>
    /// Sends a text message.
    public var send: @Sendable (_ text: String) async throws -> Void
    /// Closes the socket; `messages` then finishes.
    public var close: @Sendable () -> Void

    /// A connection of its parts.
    public init(
        messages: AsyncThrowingStream<String, any Error>, send: @escaping @Sendable (_ text: String) async throws -> Void,
        close: @escaping @Sendable () -> Void
    ) {
        self.messages = messages
        self.send = send
        self.close = close
    }
}

/// Why a websocket stopped.
public enum WebSocketConnectionError: Error, Equatable, CustomStringConvertible {
    /// A binary message, which no exchange here sends.
    case binaryMessage(bytes: Int)

    public var description: String {
        switch self {
        case .binaryMessage(let bytes): "a binary message of \(bytes) bytes where text JSON was expected"
        }
    }
}

extension WebSocketConnection {
    /// The largest message taken (Kraken's instrument snapshot is the largest public one, under 1 MB).
    public static let maxMessageSize = 1 << 22

    /// Opens a websocket to `url` (`wss://` with TLS, `ws://` without) with HummingbirdWSClient. Returns at once:
    /// a failure to connect arrives as `messages` throwing.
    public static func open(url: String, logger: Logger) -> Self {
        let (messages, input) = AsyncThrowingStream<String, any Error>.makeStream()
        let (outgoing, output) = AsyncStream<String>.makeStream()
        let task = Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: maxMessageSize), logger: logger
                ) { inbound, outbound, _ in
                    let writer = Task {
                        for await text in outgoing { try await outbound.write(.text(text)) }
                    }
                    defer { writer.cancel() }
                    for try await message in inbound.messages(maxSize: maxMessageSize) {
                        switch message {
                        case .text(let text): input.yield(text)
                        case .binary(let buffer): throw WebSocketConnectionError.binaryMessage(bytes: buffer.readableBytes)
                        }
                    }
                }
                input.finish()
            } catch {
                input.finish(throwing: error)
            }
        }
        input.onTermination = { _ in task.cancel() }
        return Self(messages: messages, send: { output.yield($0) }, close: { task.cancel() })
    }
}
