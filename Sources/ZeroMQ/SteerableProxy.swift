import CZeroMQ
import Foundation
import Synchronization

/// What libzmq's proxy has passed so far (its `STATISTICS` command): whole messages (a multipart message
/// counts once) and their bytes, in and out of each side.
public struct ProxyStatistics: Sendable, Equatable {
    /// Messages and bytes the frontend received and sent.
    public var frontendReceived, frontendReceivedBytes, frontendSent, frontendSentBytes: UInt64
    /// Messages and bytes the backend received and sent.
    public var backendReceived, backendReceivedBytes, backendSent, backendSentBytes: UInt64

    /// Statistics from the eight 8-byte frames of libzmq's reply; nil for anything else.
    init?(frames: [Data]) {
        guard frames.count == 8, frames.allSatisfy({ $0.count == 8 }) else { return nil }
        let values = frames.map { frame in frame.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        (frontendReceived, frontendReceivedBytes, frontendSent, frontendSentBytes) = (values[0], values[1], values[2], values[3])
        (backendReceived, backendReceivedBytes, backendSent, backendSentBytes) = (values[4], values[5], values[6], values[7])
    }
}

/// Why the proxy could not answer.
public enum SteerableProxyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The proxy has stopped (terminated, or its context shut down).
    case stopped(String)
    /// Another ``SteerableProxy/statistics()`` call is waiting for its reply.
    case busy(String)

    public var description: String {
        switch self {
        case .stopped(let name): "proxy \(name) has stopped"
        case .busy(let name): "proxy \(name) is already answering a statistics request"
        }
    }
}

/// libzmq's own proxy (`zmq_proxy_steerable`) between a frontend and a backend socket, on a thread of its
/// own: the blocking call never runs on Swift's cooperative threads. It is steered through an `inproc` PAIR
/// control socket: ``statistics()`` asks what it has passed, ``terminate()`` stops it.
///
/// Both sockets are made, configured (bound, connected) on the caller's thread, then used only by the
/// proxy's thread, which closes them when the proxy ends.
public final class SteerableProxy: Sendable {
    /// A name for logs and the thread's name.
    public let name: String

    private let control: OwnedSocket
    private let state = Mutex(State())

    private struct State {
        var result: Result<Void, ZMQError>?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var askingStatistics = false
    }

    /// Makes the two sockets, lets `configureFrontend` and `configureBackend` set their options, bind and
    /// connect them, then starts the proxy on its own thread.
    public init(
        context: ZMQContext, name: String,
        frontend frontendType: SocketType, configureFrontend: (Socket) throws -> Void,
        backend backendType: SocketType, configureBackend: (Socket) throws -> Void
    ) throws {
        self.name = name
        let frontend = try Socket(context: context, type: frontendType)
        try configureFrontend(frontend)
        let backend = try Socket(context: context, type: backendType)
        try configureBackend(backend)
        let controlEndpoint = "inproc://tickwire-proxy-control-\(UUID().uuidString)"
        let proxyControl = try Socket(context: context, type: .pair)
        try proxyControl.bind(controlEndpoint)
        control = try OwnedSocket(context: context, type: .pair, name: "\(name)-control", receiveBuffer: 16) { socket in
            try socket.connect(controlEndpoint)
        }
        let sockets = ProxySockets(frontend: frontend, backend: backend, control: proxyControl)
        // The thread keeps the proxy until it ends: it must end by ``terminate()`` or its context's shutdown.
        let thread = Thread { self.finish(sockets.run()) }
        thread.name = "zmq-\(name)"
        thread.start()
    }

    /// Records how the proxy ended and resumes whoever waits for it.
    private func finish(_ result: Result<Void, ZMQError>) {
        let waiters = state.withLock { state in
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// How the proxy ended: nil while it runs, else success (terminated) or the error that stopped it.
    public var result: Result<Void, ZMQError>? { state.withLock { $0.result } }

    /// What the proxy has passed so far. One call at a time: a second while one waits throws
    /// ``SteerableProxyError/busy(_:)``.
    public func statistics() async throws -> ProxyStatistics {
        let allowed = state.withLock { state -> Bool in
            guard !state.askingStatistics else { return false }
            state.askingStatistics = true
            return true
        }
        guard allowed else { throw SteerableProxyError.busy(name) }
        defer { state.withLock { $0.askingStatistics = false } }
        guard result == nil, (try? control.send([Data("STATISTICS".utf8)])) == true else { throw SteerableProxyError.stopped(name) }
        var replies = control.incoming.makeAsyncIterator()
        while let frames = await replies.next() {
            if let statistics = ProxyStatistics(frames: frames) { return statistics }
        }
        throw SteerableProxyError.stopped(name)
    }

    /// Stops the proxy and waits until its thread has closed both sockets. Safe to call twice.
    public func terminate() async {
        if result == nil { _ = try? control.send([Data("TERMINATE".utf8)]) }
        await finished()
        await control.close()
    }

    /// Waits until the proxy has ended (``terminate()``, or its context shut down).
    public func finished() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.result != nil { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// The proxy's three sockets, handed once from the thread that made them to the proxy's thread (starting a
/// thread is the full memory barrier libzmq asks for), which alone uses them from then on.
private final class ProxySockets: @unchecked Sendable {
    let frontend: Socket
    let backend: Socket
    let control: Socket

    init(frontend: Socket, backend: Socket, control: Socket) {
        self.frontend = frontend
        self.backend = backend
        self.control = control
    }

    /// Runs `zmq_proxy_steerable` until `TERMINATE` (success) or an error such as `ETERM`, then closes the sockets.
    func run() -> Result<Void, ZMQError> {
        defer {
            frontend.close()
            backend.close()
            control.close()
        }
        do throws(ZMQError) {
            let status = zmq_proxy_steerable(
                try frontend.live("zmq_proxy_steerable"), try backend.live("zmq_proxy_steerable"), nil,
                try control.live("zmq_proxy_steerable"))
            return status == 0 ? .success(()) : .failure(ZMQError.last("zmq_proxy_steerable"))
        } catch {
            return .failure(error)
        }
    }
}
