import CZeroMQ
import Foundation

/// The ZeroMQ socket patterns Tickwire uses.
public enum SocketType: Sendable, CaseIterable {
    case pub, sub, xpub, xsub, req, rep, dealer, router, pair, push, pull

    var rawValue: Int32 {
        switch self {
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pair: ZMQ_PAIR
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        }
    }

    /// Whether sockets of this type ever receive messages (a PUB or PUSH never does).
    public var receives: Bool { self != .pub && self != .push }
}

/// One libzmq socket.
///
/// libzmq sockets are not thread-safe, so this class is deliberately not
/// `Sendable`: one owner uses it at a time (see ``OwnedSocket`` and ``LockedSocket``). Every call is
/// non-blocking unless the socket's own timeouts say otherwise.
public final class Socket {
    /// The socket's pattern.
    public let type: SocketType
    /// Unchecked: one thread uses a socket at a time (the type is not `Sendable`), so the dynamic
    /// exclusivity check every send and receive paid on reading it could never fail.
    @exclusivity(unchecked)
    private var handle: UnsafeMutableRawPointer?

    /// Makes a socket of `type` in `context`, with `linger` (default 0) so closing never hangs.
    public init(context: ZMQContext, type: SocketType, linger: Duration = .zero) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket")
        }
        self.type = type
        self.handle = handle
        try set(.linger, milliseconds(linger))
    }

    deinit { close() }

    /// Closes the socket; later calls fail with `ENOTSOCK`. Closing twice is harmless.
    public func close() {
        if let handle { zmq_close(handle) }
        handle = nil
    }

    func live(_ operation: String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else {
            throw ZMQError(operation: operation, code: ENOTSOCK, message: "socket is closed")
        }
        return handle
    }

    // MARK: Endpoints

    /// Binds to `endpoint` (`tcp://127.0.0.1:7101`, `ipc:///tmp/x`, `inproc://name`).
    public func bind(_ endpoint: String) throws(ZMQError) {
        if zmq_bind(try live("zmq_bind"), endpoint) != 0 { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to `endpoint`; libzmq reconnects by itself when the peer goes away.
    public func connect(_ endpoint: String) throws(ZMQError) {
        if zmq_connect(try live("zmq_connect"), endpoint) != 0 { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// Undoes ``connect(_:)``.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        if zmq_disconnect(try live("zmq_disconnect"), endpoint) != 0 {
            throw ZMQError.last("zmq_disconnect(\(endpoint))")
        }
    }

    /// Undoes ``bind(_:)``.
    public func unbind(_ endpoint: String) throws(ZMQError) {
        if zmq_unbind(try live("zmq_unbind"), endpoint) != 0 { throw ZMQError.last("zmq_unbind(\(endpoint))") }
    }

    /// The endpoint actually bound last, e.g. the port picked for `tcp://127.0.0.1:*`.
    public func lastEndpoint() throws(ZMQError) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        if zmq_getsockopt(try live("zmq_getsockopt"), ZMQ_LAST_ENDPOINT, &buffer, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Messages

    /// Sends all `frames` as one multipart message.
    ///
    /// - Returns: `false` when the message could not be queued without blocking
    ///   (a PUB at its high-water mark drops instead; a REQ out of turn).
    @discardableResult
    public func send(_ frames: [Data], dontWait: Bool = true) throws(ZMQError) -> Bool {
        let handle = try live("zmq_send")
        for (index, frame) in frames.enumerated() {
            let flags = Self.flags(more: index < frames.count - 1, dontWait: dontWait)
            let status = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            guard try Self.sent(status, first: index == 0) else { return false }
        }
        return true
    }

    /// Sends `first` and `second` as one two-frame message, straight from memory the caller owns: libzmq copies
    /// them, so nothing is allocated on the way (no `Data`, no array of frames).
    ///
    /// - Returns: `false` when the message could not be queued without blocking, as ``send(_:dontWait:)``.
    @discardableResult
    public func send(parts first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, dontWait: Bool = true) throws(ZMQError) -> Bool {
        let handle = try live("zmq_send")
        guard try Self.sent(zmq_send(handle, first.baseAddress, first.count, Self.flags(more: true, dontWait: dontWait)), first: true)
        else { return false }
        return try Self.sent(zmq_send(handle, second.baseAddress, second.count, Self.flags(more: false, dontWait: dontWait)), first: false)
    }

    /// `zmq_send`'s flags for a frame.
    private static func flags(more: Bool, dontWait: Bool) -> Int32 {
        (dontWait ? ZMQ_DONTWAIT : 0) | (more ? ZMQ_SNDMORE : 0)
    }

    /// Whether `zmq_send` queued a frame, from its `status`: false when it would block on the `first` frame of a
    /// message (libzmq queues a multipart message atomically once its first frame is in, so only a refusal of the
    /// first frame can be "would block"); any other failure throws.
    private static func sent(_ status: Int32, first: Bool) throws(ZMQError) -> Bool {
        if status >= 0 { return true }
        let error = ZMQError.last("zmq_send")
        if error.wouldBlock && first { return false }
        throw error
    }

    /// Receives one whole multipart message of any size, or `nil` when none is waiting
    /// (with `dontWait`) or the receive timeout passed.
    public func receive(dontWait: Bool = true) throws(ZMQError) -> [Data]? {
        var frames: [Data] = []
        // Room for a stream message's two frames [topic, json], so the second needs no reallocation.
        frames.reserveCapacity(2)
        return try receiveFrames(dontWait: dontWait) { frames.append(Data(bytes: $0, count: $1)) } ? frames : nil
    }

    /// Receives one whole multipart message, handing each frame's bytes (valid only during the call) to
    /// `frame`; false when none is waiting (with `dontWait`) or the receive timeout passed.
    ///
    /// With `property` (e.g. `"User-Id"`, which a ZAP handler sets), the value of that metadata property of the
    /// message's first frame comes first, as a frame of its own (empty when the connection has none).
    func receiveFrames(dontWait: Bool, property: String? = nil, _ frame: (UnsafeRawPointer, Int) -> Void) throws(ZMQError) -> Bool {
        let handle = try live("zmq_msg_recv")
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        var received = 0
        while true {
            if zmq_msg_recv(&message, handle, dontWait ? ZMQ_DONTWAIT : 0) < 0 {
                let error = ZMQError.last("zmq_msg_recv")
                if error.wouldBlock && received == 0 { return false }
                // A signal can interrupt libzmq's look at its commands even between the frames of one message,
                // whose rest is already queued: give up on it half-way and the rest would read as a new message.
                if error.code == EINTR && received > 0 { continue }
                throw error
            }
            if received == 0, let property {
                if let value = zmq_msg_gets(&message, property) {
                    frame(UnsafeRawPointer(value), strlen(value))
                } else {
                    withUnsafeBytes(of: 0) { frame($0.baseAddress!, 0) }
                }
            }
            frame(zmq_msg_data(&message), zmq_msg_size(&message))
            received += 1
            if zmq_msg_more(&message) == 0 { return true }
        }
    }

    /// Subscribes a SUB socket to every topic starting with `prefix` ("" for all).
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try set(ZMQ_SUBSCRIBE, Data(prefix.utf8))
    }

    /// Removes a subscription made by ``subscribe(_:)``.
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try set(ZMQ_UNSUBSCRIBE, Data(prefix.utf8))
    }

    // MARK: Options

    /// Integer socket options.
    public enum IntOption: Sendable {
        case sendHighWaterMark, receiveHighWaterMark, linger, sendTimeout, receiveTimeout
        case reqRelaxed, reqCorrelate, immediate, routerMandatory, xpubVerbose, xpubNoDrop, curveServer
        case reconnectInterval, connectTimeout, heartbeatInterval

        var rawValue: Int32 {
            switch self {
            case .sendHighWaterMark: ZMQ_SNDHWM
            case .receiveHighWaterMark: ZMQ_RCVHWM
            case .linger: ZMQ_LINGER
            case .sendTimeout: ZMQ_SNDTIMEO
            case .receiveTimeout: ZMQ_RCVTIMEO
            case .reqRelaxed: ZMQ_REQ_RELAXED
            case .reqCorrelate: ZMQ_REQ_CORRELATE
            case .immediate: ZMQ_IMMEDIATE
            case .routerMandatory: ZMQ_ROUTER_MANDATORY
            case .xpubVerbose: ZMQ_XPUB_VERBOSE
            case .xpubNoDrop: ZMQ_XPUB_NODROP
            case .curveServer: ZMQ_CURVE_SERVER
            case .reconnectInterval: ZMQ_RECONNECT_IVL
            case .connectTimeout: ZMQ_CONNECT_TIMEOUT
            case .heartbeatInterval: ZMQ_HEARTBEAT_IVL
            }
        }
    }

    /// Byte-string socket options (CURVE keys are 32 raw bytes or 40 Z85 characters).
    public enum BytesOption: Sendable {
        case curvePublicKey, curveSecretKey, curveServerKey, routingID, zapDomain

        var rawValue: Int32 {
            switch self {
            case .zapDomain: ZMQ_ZAP_DOMAIN
            case .curvePublicKey: ZMQ_CURVE_PUBLICKEY
            case .curveSecretKey: ZMQ_CURVE_SECRETKEY
            case .curveServerKey: ZMQ_CURVE_SERVERKEY
            case .routingID: ZMQ_ROUTING_ID
            }
        }
    }

    /// Sets an integer option.
    public func set(_ option: IntOption, _ value: Int32) throws(ZMQError) {
        var value = value
        if zmq_setsockopt(try live("zmq_setsockopt"), option.rawValue, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError.last("zmq_setsockopt(\(option))")
        }
    }

    /// Sets a boolean option.
    public func set(_ option: IntOption, _ value: Bool) throws(ZMQError) {
        try set(option, value ? 1 : 0)
    }

    /// Sets `ZMQ_MAXMSGSIZE`: a peer that sends a larger message is disconnected (-1: no limit).
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) {
        var value = bytes
        if zmq_setsockopt(try live("zmq_setsockopt"), ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size) != 0 {
            throw ZMQError.last("zmq_setsockopt(ZMQ_MAXMSGSIZE)")
        }
    }

    /// Reads `ZMQ_MAXMSGSIZE`.
    public func maxMessageSize() throws(ZMQError) -> Int64 {
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        if zmq_getsockopt(try live("zmq_getsockopt"), ZMQ_MAXMSGSIZE, &value, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt(ZMQ_MAXMSGSIZE)")
        }
        return value
    }

    /// Sets a byte-string option.
    public func set(_ option: BytesOption, _ value: Data) throws(ZMQError) {
        try set(option.rawValue, value)
    }

    /// Reads an integer option.
    public func get(_ option: IntOption) throws(ZMQError) -> Int32 {
        try int(option.rawValue, named: "\(option)")
    }

    /// Reads the `int` option `option`, naming it `name` in an error.
    private func int(_ option: Int32, named name: String) throws(ZMQError) -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(try live("zmq_getsockopt"), option, &value, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt(\(name))")
        }
        return value
    }

    private func set(_ option: Int32, _ value: Data) throws(ZMQError) {
        let handle = try live("zmq_setsockopt")
        let status = value.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        if status != 0 { throw ZMQError.last("zmq_setsockopt(\(option))") }
    }

    // MARK: Readiness

    /// The file descriptor that becomes readable when the socket's state may have changed (`ZMQ_FD`), for
    /// waiting in `poll(2)` without using the socket. It signals edges, not levels: after any call on the
    /// socket, ask ``hasInput()`` whether a message waits, since that call may have taken the signal.
    func fileDescriptor() throws(ZMQError) -> Int32 {
        try int(ZMQ_FD, named: "ZMQ_FD")
    }

    /// Reports the socket's handshake failures that a ZAP handler does not decide (a peer with another
    /// mechanism, a broken handshake) to a PAIR socket that connects to `endpoint` (`inproc://`): libzmq's
    /// monitor events, two frames each (`[UInt16 event, UInt32 value]` in host order, then the peer's address).
    public func monitorHandshakeFailures(_ endpoint: String) throws(ZMQError) {
        let events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
        if zmq_socket_monitor(try live("zmq_socket_monitor"), endpoint, events) != 0 {
            throw ZMQError.last("zmq_socket_monitor(\(endpoint))")
        }
    }

    /// The raw handle, for `zmq_poll`; only while the socket is open.
    func rawHandle() throws(ZMQError) -> UnsafeMutableRawPointer { try live("zmq_poll") }

    /// Whether a message waits to be received (`ZMQ_EVENTS` has `ZMQ_POLLIN`).
    func hasInput() throws(ZMQError) -> Bool {
        try int(ZMQ_EVENTS, named: "ZMQ_EVENTS") & Int32(ZMQ_POLLIN) != 0
    }
}

/// A whole number of milliseconds in `duration`, as libzmq's options want it.
func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
}

/// A CURVE key pair in Z85 text, for `curvePublicKey`/`curveSecretKey`.
public struct CurveKeyPair: Sendable, Hashable {
    /// The public key (40 Z85 characters).
    public let publicKey: String
    /// The secret key (40 Z85 characters).
    public let secretKey: String

    /// A fresh key pair from libzmq (needs libzmq built with CURVE, as Debian's is).
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        if zmq_curve_keypair(&publicKey, &secretKey) != 0 { throw ZMQError.last("zmq_curve_keypair") }
        func text(_ key: [CChar]) -> String {
            String(decoding: key.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return CurveKeyPair(publicKey: text(publicKey), secretKey: text(secretKey))
    }
}
