import FuzzEntry
import FuzzWireJSON

/// WireJSON against Foundation's decoder on each input; a disagreement is a crash.
@main
enum WireJSONFuzzer {
    static func main() {
        runFuzzer { start, count in
            let problems = WireJSONFuzz.check(input(start, count))
            if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
            return 0
        }
    }
}
