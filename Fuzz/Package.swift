// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets over Tickwire's hostile-input paths, built apart from the main package so its
/// build and tests never compile them: `make fuzz` (see the Makefile) builds them with
/// `-sanitize=fuzzer,address` into `.build-fuzz` and runs each on its corpus in `Fuzz/corpus/<target>/`.
/// The checks live in the main package (Tests/FuzzTargets), where FuzzReplayTests replay the corpus.
let package = Package(
    name: "tickwire-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "tickwire", path: "..")],
    targets: [
        // libFuzzer's driver, and the glue between its synchronous callback and the async checks.
        .target(name: "CFuzzer"),
        .target(name: "FuzzEntry", dependencies: ["CFuzzer"]),
        fuzzer("WireJSONFuzzer", check: "FuzzWireJSON"),
        fuzzer("SubscriberFuzzer", check: "FuzzSubscriber"),
        fuzzer("RPCMethodsFuzzer", check: "FuzzRPCMethods"),
    ],
    swiftLanguageModes: [.v6]
)

/// A libFuzzer executable whose driver runs the check of the main package's library `check` on each input.
func fuzzer(_ name: String, check: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzEntry", .product(name: check, package: "tickwire")]
    )
}
