import Foundation
import Synchronization

/// A send-only socket (PUB or PUSH) that any thread may send on, one at a time behind a lock.
///
/// libzmq sockets are not thread-safe, but one may pass from thread to thread across a full memory
/// barrier; taking and releasing the lock is that barrier, so the lock is the socket's owner. Every
/// call is non-blocking (sends use `ZMQ_DONTWAIT`; a PUB never blocks, and at a subscriber's high-water
/// mark libzmq drops that subscriber's copy silently), so the lock is held only while libzmq copies a
/// message into its queue, and no cooperative thread ever waits on libzmq.
///
/// A publisher sends this way on its own thread. ``OwnedSocket`` sends the same way and adds a thread
/// that receives; a socket that only sends needs no thread.
public final class LockedSocket: Sendable {
    /// The socket's pattern.
    public let type: SocketType
    private let socket: Mutex<Socket>
    private let dropped = Atomic<Int>(0)
    private let lossy = Atomic<Int>(0)
    /// Kept alive while the socket is: terminating a context waits for its open sockets.
    private let context: ZMQContext

    /// Makes a socket of a sending `type` and lets `configure` set options, bind and connect it.
    public init(context: ZMQContext, type: SocketType, configure: (Socket) throws -> Void) throws {
        precondition(!type.receives, "a LockedSocket only sends; \(type) sockets receive")
        let socket = try Socket(context: context, type: type)
        try configure(socket)
        self.type = type
        self.context = context
        self.socket = Mutex(socket)
    }

    /// Messages refused since start: after ``close()``, or by a socket that would have blocked (a PUSH at
    /// its high-water mark; a PUB never refuses, libzmq drops silently for a subscriber that is behind).
    public var droppedSends: Int { dropped.load(ordering: .relaxed) }

    /// Sends `frames` as one multipart message without blocking; returns false, and counts a drop,
    /// when the socket refused it or is closed.
    @discardableResult
    public func send(_ frames: [Data]) -> Bool {
        let sent = socket.withLock { socket in (try? socket.send(frames, dontWait: true)) ?? false }
        if !sent { dropped.add(1, ordering: .relaxed) }
        return sent
    }

    /// What became of a message sent with ``sendReportingLoss(_:)``.
    public enum Delivery: Sendable, Equatable {
        /// Queued for every subscriber it is for.
        case sent
        /// Queued for all but the subscribers a high-water mark behind, whose copy was dropped.
        case lossy
        /// Not queued at all (the socket is closed).
        case refused
    }

    /// Messages sent ``Delivery/lossy`` since start.
    public var lossySends: Int { lossy.load(ordering: .relaxed) }

    /// Sends `frames` without blocking on a PUB socket that has `ZMQ_XPUB_NODROP` set
    /// (``Socket/IntOption/xpubNoDrop``), and says whether a subscriber lost it.
    ///
    /// With NODROP, libzmq refuses a message for everyone when a subscriber it is for is a high-water mark
    /// behind. It is then sent again without NODROP: every other subscriber gets it and the ones behind lose
    /// their copy, as a plain PUB does silently, but here it counts (``lossySends``).
    public func sendReportingLoss(_ frames: [Data]) -> Delivery {
        sendReportingLoss { (try? $0.send(frames, dontWait: true)) ?? false }
    }

    /// ``sendReportingLoss(_:)`` of the two frames `first` and `second` straight from memory the caller owns, for
    /// the whole of the call: nothing is allocated on the way (no `Data`, no array of frames).
    public func sendReportingLoss(parts first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Delivery {
        sendReportingLoss { (try? $0.send(parts: first, second, dontWait: true)) ?? false }
    }

    /// ``sendReportingLoss(_:)`` with `send` sending the message once, without blocking (true when queued).
    private func sendReportingLoss(by send: (Socket) -> Bool) -> Delivery {
        let delivery = socket.withLock { socket -> Delivery in
            if send(socket) { return .sent }
            guard (try? socket.set(.xpubNoDrop, false)) != nil else { return .refused }
            defer { try? socket.set(.xpubNoDrop, true) }
            return send(socket) ? .lossy : .refused
        }
        switch delivery {
        case .sent: break
        case .lossy: lossy.add(1, ordering: .relaxed)
        case .refused: dropped.add(1, ordering: .relaxed)
        }
        return delivery
    }

    /// Runs `body` with the socket under the lock: for quick, non-blocking calls (options, ``Socket/lastEndpoint()``).
    /// Once the socket is closed, its calls throw `ENOTSOCK`.
    public func withSocket<T: Sendable>(_ body: (Socket) throws -> T) throws -> T {
        try socket.withLock { try body($0) }
    }

    /// Closes the socket; later sends are counted as dropped. Safe to call twice.
    public func close() {
        socket.withLock { $0.close() }
    }
}
