import BusContract
import Money

extension MoneyError: RPCErrorConvertible {
    /// Money errors as JSON-RPC errors in Tickwire's range, naming what was wrong.
    public var rpcError: RPCError {
        switch self {
        case .invalidNumber, .overflow, .divisionByZero:
            RPCError(code: RPCError.Code.invalidParams, message: "invalid params: \(description)")
        case .invalidCurrencyCode(let code):
            RPCError(code: RPCError.Code.invalidParams, message: "invalid params: \(description)", data: ["currency": code])
        case .unknownCurrency(let code):
            RPCError(code: RPCError.Code.unknownCurrency, message: description, data: ["currency": code])
        case .noPath(let from, let to):
            RPCError(code: RPCError.Code.noPath, message: description, data: ["pair": "\(from)-\(to)"])
        case .invalidRate(let from, let to, _):
            RPCError(code: RPCError.Code.invalidRate, message: description, data: ["pair": "\(from)-\(to)"])
        }
    }
}
