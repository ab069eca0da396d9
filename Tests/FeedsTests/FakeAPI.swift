import Feeds
import Foundation
import Hummingbird
import Logging
import Testing

/// What the fake API answers to one request.
struct Reply: Sendable {
    var status: HTTPResponse.Status = .ok
    var body: Data
    var contentType = "application/json"
    /// Waits this long before answering, to outlast a client's timeout.
    var delay: Duration?
    /// Sends the first half of the body, then waits this long before the rest.
    var stall: Duration?

    /// A fixture's bytes, as recorded.
    static func fixture(_ fixture: FeedFixture) throws -> Reply { Reply(body: try fixture.data()) }

    /// A text body.
    static func text(_ text: String, status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Reply {
        Reply(status: status, body: Data(text.utf8), contentType: contentType)
    }
}

/// A fake API on 127.0.0.1 that answers only the exact path-and-query keys of `routes`, and only to
/// requests that send `Accept: application/json`: anything else gets a 404 or a 406, so a live client
/// that asks for the wrong thing fails its test.
enum FakeAPI {
    /// Runs `body` with the base URL of a fake API serving `routes`, then stops the server.
    static func serve(_ routes: [String: Reply], _ body: (URL) async throws -> Void) async throws {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard request.headers[.accept] == "application/json" else {
                return Response(status: .notAcceptable, body: .init(byteBuffer: ByteBuffer(string: "send Accept: application/json")))
            }
            let target = request.uri.path + (request.uri.query.map { "?\($0)" } ?? "")
            guard let reply = routes[target] else {
                return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "no route for \(target)")))
            }
            if let delay = reply.delay { try await Task.sleep(for: delay) }
            guard let stall = reply.stall else {
                return Response(
                    status: reply.status, headers: [.contentType: reply.contentType],
                    body: .init(byteBuffer: ByteBuffer(bytes: reply.body))
                )
            }
            let half = reply.body.count / 2
            return Response(
                status: reply.status, headers: [.contentType: reply.contentType],
                body: ResponseBody(contentLength: reply.body.count) { writer in
                    try await writer.write(ByteBuffer(bytes: reply.body.prefix(half)))
                    try await Task.sleep(for: stall)
                    try await writer.write(ByteBuffer(bytes: reply.body.dropFirst(half)))
                }
            )
        }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "fake-api")
        logger.logLevel = .critical
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try #require(port > 0)
            try await body(#require(URL(string: "http://127.0.0.1:\(port)")))
        }
    }
}

/// Runs `body` and returns the `FeedError` it throws; records an issue if it throws something else or nothing.
func feedError(_ body: () async throws -> some Any) async -> FeedError? {
    do {
        _ = try await body()
        Issue.record("expected a FeedError, got a value")
    } catch let error as FeedError {
        return error
    } catch {
        Issue.record("expected a FeedError, got \(error)")
    }
    return nil
}
