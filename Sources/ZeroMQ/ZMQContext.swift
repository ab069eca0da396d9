import CZeroMQ

/// A libzmq context: the owner of I/O threads that every socket is made from.
///
/// libzmq documents its context as thread-safe, which is why this class may be
/// shared across tasks. Terminating it waits for every socket to be closed;
/// sockets made here set a linger, so that wait is bounded.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context with libzmq's default of one I/O thread.
    public init() throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
    }

    /// Makes `zmq_poll`, `zmq_recv` and friends on this context's sockets return `ETERM`.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        zmq_ctx_shutdown(handle)
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// The linked libzmq version as "major.minor.patch".
    public static var libraryVersion: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
