import Bus
import BusContract
import Foundation
import Money
import TickwireContract

/// `profile-rpc N` (issue 31, stage 3): N `convert` round trips in process, no socket, for callgrind. Each call goes
/// through the product's `LocalRPC`: the request encoded as `RPCClient` encodes it, answered by `RPCMethods.handle`
/// (header, params, handler, reply), and the reply decoded by the client's own decode. The handler does what the
/// converter's does with rates derived once (a conversion and a result to encode), so the count is the RPC path's.
enum RPCProfile {
    /// The `from` currencies the calls cycle through (to EUR), as benchmark 2b's calls do.
    static let currencies = ["USD", "AUD", "SEK", "GBP"]

    /// A server's methods answering `ConverterAPI.convert` from `ConversionBench`'s rates, derived once.
    static func methods() throws -> RPCMethods {
        let graph = try ConversionBench.graph()
        let rates = try Dictionary(uniqueKeysWithValues: currencies.map { ($0, try graph.rate(from: $0, to: "EUR")) })
        var methods = RPCMethods()
        methods.register(ConverterAPI.convert) { request in
            guard let rate = rates[request.from], request.to == "EUR" else { throw BenchError("profile-rpc converts \(currencies) to EUR only") }
            return ConvertResult(
                amount: try rate.convert(request.amount, scale: 2), currency: "EUR", rate: rate.decimal(scale: 18),
                rateExact: true, path: rate.path, source: request.source ?? "ecb")
        }
        return methods
    }

    /// `count` calls; the checksum adds the converted amounts' mantissas (the same for every build that answers right).
    static func run(count: Int) async throws -> Int128 {
        let caller = LocalRPC(try methods(), name: "profile-rpc")
        var checksum: Int128 = 0
        for index in 0..<count {
            let request = ConvertRequest(
                amount: try ExactDecimal(mantissa: 129_899 + Int128(index % 1000), scale: 2), from: currencies[index & 3], to: "EUR")
            // A deadline, so the request carries `timeoutMs` as every `RPCClient` request does.
            let result = try await caller.call(ConverterAPI.convert, request, deadline: .now + .seconds(2))
            checksum &+= result.amount.mantissa
        }
        return checksum
    }
}
