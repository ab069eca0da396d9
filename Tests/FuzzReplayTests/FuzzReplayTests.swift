import Foundation
import Bus
import FuzzRPCMethods
import FuzzSubscriber
import FuzzWireJSON
import Testing

/// Every input of the fuzzers' corpus (`Fuzz/corpus/<target>/`: the seeds and what `make fuzz` kept)
/// and of `Fuzz/regressions/<target>/` (each crash a fuzzer found), through the fuzz targets' checks:
/// what `make test` runs of the fuzzing, in seconds.
@Suite("Fuzz corpus replay")
struct FuzzReplayTests {
    /// The inputs of one target, by file name, from both folders.
    static func inputs(of target: String) throws -> [(name: String, data: Data)] {
        let fuzz = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Fuzz").standardized
        var inputs: [(String, Data)] = []
        for folder in ["corpus", "regressions"] {
            let directory = fuzz.appending(path: "\(folder)/\(target)")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                inputs.append(("\(folder)/\(name)", try Data(contentsOf: directory.appending(path: name))))
            }
        }
        return inputs
    }

    @Test func wireJSONAgreesWithFoundation() throws {
        let inputs = try Self.inputs(of: "WireJSONFuzzer")
        #expect(inputs.count >= 10)
        for (name, data) in inputs {
            let problems = WireJSONFuzz.check(data)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func everyRPCMethodAnswersEveryInput() async throws {
        let inputs = try Self.inputs(of: "RPCMethodsFuzzer")
        #expect(inputs.count >= 10)
        let harness = try await RPCMethodsFuzz()
        for (name, data) in inputs {
            let problems = await harness.check(data)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func subscriberTakesInAnyFrames() async throws {
        let inputs = try Self.inputs(of: "SubscriberFuzzer")
        #expect(inputs.count >= 5)
        let harness = try SubscriberFuzz()
        for (name, data) in inputs {
            let problems = await harness.check(data)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func theChecksCatchWhatTheyAreFor() throws {
        // A check that could not fail would make the fuzzing prove nothing.
        #expect(!RPCMethodsFuzz.problems(Data(#"{"jsonrpc":"2.0","id":1}"#.utf8)).isEmpty)
        #expect(!RPCMethodsFuzz.problems(Data("[]".utf8)).isEmpty)
        #expect(RPCMethodsFuzz.problems(Data(#"{"jsonrpc":"2.0","id":1,"result":null}"#.utf8)).isEmpty)
        let held = SubscriberFuzz.snapshot.entries[0]
        let stale = try BusMessage(frames: [Data(held.topic.rawValue.utf8), Data(held.body.utf8)])
        #expect(!SubscriberFuzz.problems([.snapshot(publisher: "fuzz", instance: "run-1", messages: []), .message(stale)]).isEmpty)
        #expect(!SubscriberFuzz.problems([.message(stale)]).isEmpty)
    }
}
