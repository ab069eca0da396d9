import CZeroMQ

/// A libzmq failure: the operation that failed, its errno and `zmq_strerror` text.
public struct ZMQError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation that failed, e.g. `"zmq_bind(tcp://127.0.0.1:7101)"`.
    public let operation: String
    /// The errno value libzmq reported.
    public let code: Int32
    /// libzmq's own text for `code`.
    public let message: String

    /// The error libzmq just reported for `operation` (reads `zmq_errno`).
    public static func last(_ operation: String) -> ZMQError {
        let code = zmq_errno()
        return ZMQError(operation: operation, code: code, message: String(cString: zmq_strerror(code)))
    }

    /// Whether the call would have blocked (`EAGAIN`).
    public var wouldBlock: Bool { code == EAGAIN }
    /// Whether the context was terminated under the socket (`ETERM`).
    public var contextTerminated: Bool { code == ETERM }

    /// libzmq's `EFSM`: the call does not fit the socket's state (a REQ receiving before it sent). Its C macro
    /// is an expression, which Swift does not import.
    static let stateMachine = ZMQ_HAUSNUMERO + 51

    public var description: String { "\(operation) failed: \(message) (errno \(code))" }
}
