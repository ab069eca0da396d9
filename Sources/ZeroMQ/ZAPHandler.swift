import CZeroMQ
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One ZAP request (RFC 27): a connecting peer that a CURVE (or other) server asks about.
public struct ZAPRequest: Sendable, Hashable {
    /// The request's id, echoed in the reply.
    public var requestID: Data
    /// The server socket's ZAP domain.
    public var domain: String
    /// The peer's address (its IP, without the port).
    public var address: String
    /// The security mechanism: `NULL`, `PLAIN` or `CURVE`.
    public var mechanism: String
    /// The mechanism's credentials: for CURVE, the client's 32-byte public key.
    public var credentials: [Data]

    /// A request; `credentials` as the mechanism gives them.
    public init(requestID: Data = Data(), domain: String = "", address: String = "", mechanism: String, credentials: [Data] = []) {
        self.requestID = requestID
        self.domain = domain
        self.address = address
        self.mechanism = mechanism
        self.credentials = credentials
    }

    /// Parses the frames of a request: version "1.0", request id, domain, address, identity, mechanism,
    /// credentials...; nil when they are not one.
    init?(frames: [Data]) {
        guard frames.count >= 6, frames[0] == Data("1.0".utf8) else { return nil }
        self.init(requestID: frames[1], domain: String(decoding: frames[2], as: UTF8.self),
                  address: String(decoding: frames[3], as: UTF8.self), mechanism: String(decoding: frames[5], as: UTF8.self),
                  credentials: Array(frames[6...]))
    }

    /// The CURVE client's public key in Z85, if the request carries one.
    public var curveKey: String? {
        guard mechanism == "CURVE", let key = credentials.first else { return nil }
        return CurveCertificate.encode(key)
    }
}

/// A ZAP handler's answer.
public struct ZAPDecision: Sendable, Hashable {
    /// "200" lets the peer in; "400" refuses it.
    public var statusCode: String
    /// Why, for logs.
    public var statusText: String
    /// The peer's User-Id, which every message it sends carries as metadata.
    public var userID: String

    /// Lets the peer in as `userID`.
    public static func accept(_ userID: String) -> ZAPDecision { ZAPDecision(statusCode: "200", statusText: "OK", userID: userID) }
    /// Refuses the peer, saying why.
    public static func refuse(_ reason: String) -> ZAPDecision { ZAPDecision(statusCode: "400", statusText: reason, userID: "") }

    /// Whether it lets the peer in.
    public var accepted: Bool { statusCode == "200" }

    /// The reply's frames to `request`.
    func frames(answering request: ZAPRequest) -> [Data] {
        [Data("1.0".utf8), request.requestID, Data(statusCode.utf8), Data(statusText.utf8), Data(userID.utf8), Data()]
    }
}

/// The ZAP handler of a context (RFC 27): a REP socket bound to `inproc://zeromq.zap.01`, owned by a thread of its
/// own that sleeps in `zmq_poll` until a request (or the stop signal) comes and answers with `decide`.
///
/// Once it runs, every socket of the context with a security mechanism (here: CURVE servers) asks it about each
/// connecting peer. One per context; ``stop()`` unbinds it.
public final class ZAPHandler: Sendable {
    /// The endpoint libzmq asks.
    public static let endpoint = "inproc://zeromq.zap.01"

    private let stopPipe: (read: Int32, write: Int32)
    private let stopped = Mutex(false)
    private let finished = Finished()

    /// Binds the handler's socket in `context` and starts its thread; `decide` runs on that thread, so it must
    /// not block.
    public init(context: ZMQContext, decide: @escaping @Sendable (ZAPRequest) -> ZAPDecision) throws {
        let socket = try Socket(context: context, type: .rep)
        try socket.bind(Self.endpoint)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw ZMQError(operation: "pipe", code: errno, message: String(cString: strerror(errno))) }
        stopPipe = (fds[0], fds[1])
        let owned = Handover(socket: socket)
        let stopFD = fds[0]
        let finished = self.finished
        let thread = Thread {
            Self.serve(owned.take(), stopFD: stopFD, decide: decide)
            finished.finish()
        }
        thread.name = "zmq-zap"
        thread.start()
    }

    /// Stops the thread and closes its socket; returns once it has. Safe to call twice.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
        await withCheckedContinuation { finished.wait($0) }
    }

    deinit {
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// The thread's loop: answers each request until the stop pipe is written or the context ends.
    private static func serve(_ socket: Socket, stopFD: Int32, decide: (ZAPRequest) -> ZAPDecision) {
        defer { socket.close() }
        guard let handle = try? socket.rawHandle() else { return }
        while true {
            var items = [
                zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: nil, fd: stopFD, events: Int16(ZMQ_POLLIN), revents: 0),
            ]
            if zmq_poll(&items, 2, -1) < 0 {
                if zmq_errno() == EINTR { continue }
                return
            }
            if items[1].revents != 0 { return }
            while let frames = try? socket.receive(dontWait: true) {
                // A malformed request still gets a reply, or the REP socket would wait forever for one.
                let request = ZAPRequest(frames: frames) ?? ZAPRequest(requestID: frames.count > 1 ? frames[1] : Data(), mechanism: "")
                let decision = request.mechanism.isEmpty ? .refuse("malformed ZAP request") : decide(request)
                _ = try? socket.send(decision.frames(answering: request), dontWait: true)
            }
        }
    }
}

/// Who waits for the handler's thread to end; nil once it has.
private final class Finished: Sendable {
    private let waiters = Mutex<[CheckedContinuation<Void, Never>]?>([])

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let done = waiters.withLock { waiters in
            if waiters == nil { return true }
            waiters?.append(continuation)
            return false
        }
        if done { continuation.resume() }
    }

    func finish() {
        let all = waiters.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in all { waiter.resume() }
    }
}

/// Hands a socket made on one thread to the thread that owns it from then on (starting a thread is a full memory
/// barrier, as libzmq asks of a socket that changes threads).
private final class Handover: @unchecked Sendable {
    private var socket: Socket?
    init(socket: Socket) { self.socket = socket }
    func take() -> Socket {
        defer { socket = nil }
        return socket!
    }
}
