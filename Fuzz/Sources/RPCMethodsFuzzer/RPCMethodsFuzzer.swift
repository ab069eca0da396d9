import FuzzEntry
import FuzzRPCMethods

/// The four services' method tables, made once.
let harness = waitFor { try! await RPCMethodsFuzz() }

/// One request to one service's methods per input; an answer that is not a JSON-RPC response is a crash.
@main
enum RPCMethodsFuzzer {
    static func main() {
        _ = harness
        runFuzzer { start, count in
            let request = input(start, count)
            let problems = waitFor { await harness.check(request) }
            if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
            return 0
        }
    }
}
