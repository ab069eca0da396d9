import FuzzEntry
import FuzzSubscriber

/// One subscriber for every input.
let harness = try! SubscriberFuzz()

/// Batches of stream frames into a subscriber per input; a message passed on out of order is a crash.
@main
enum SubscriberFuzzer {
    static func main() {
        _ = harness
        runFuzzer { start, count in
            let frames = input(start, count)
            let problems = waitFor { await harness.check(frames) }
            if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
            return 0
        }
    }
}
