import Bus
import Money

extension MoneyError: RPCErrorConvertible {
    /// Money errors as JSON-RPC errors in Tickwire's range, naming what was wrong.
    public var rpcError: RPCError {
        switch self {
        case .invalidNumber, .overflow, .divisionByZero:
            RPCError(code: -32602, message: "invalid params: \(description)")
        case .invalidCurrencyCode(let code):
            RPCError(code: -32602, message: "invalid params: \(description)", data: ["currency": code])
        case .unknownCurrency(let code):
            RPCError(code: -32010, message: description, data: ["currency": code])
        case .noPath(let from, let to):
            RPCError(code: -32011, message: description, data: ["pair": "\(from)-\(to)"])
        case .invalidRate(let from, let to, _):
            RPCError(code: -32012, message: description, data: ["pair": "\(from)-\(to)"])
        }
    }
}
