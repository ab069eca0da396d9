// swift-tools-version: 6.1
import PackageDescription

/// Release links that keep a service's resident memory down (bench/PROFILE.md, idle RSS): GNU ld packs
/// the 100,000-odd relative relocations of a static Swift binary into a few KB (gold cannot; they were
/// 2.7 MB, all read at start), and only the symbols the dynamic loader needs are exported (29,585 were,
/// each a resident `.dynsym` entry; nothing here looks symbols up with `dlsym`).
let leanLinking = ["-use-ld=bfd", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"]

/// Tickwire: market data and portfolio services that talk Codable JSON over ZeroMQ.
///
/// Libraries live in `Sources/<Module>`, executables in `Services/<name>`,
/// and each test target sits in `Tests/<Module>Tests`.
let package = Package(
    name: "tickwire",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "rates-fetcher", targets: ["rates-fetcher"]),
        .executable(name: "converter", targets: ["converter"]),
        .executable(name: "portfolio", targets: ["portfolio"]),
        .executable(name: "presenter", targets: ["presenter"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "Bus", targets: ["Bus"]),
        .library(name: "Money", targets: ["Money"]),
        .library(name: "Market", targets: ["Market"]),
        .library(name: "Messages", targets: ["Messages"]),
        .library(name: "WireJSON", targets: ["WireJSON"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.23.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
    ],
    targets: [
        // The C library and its Swift wrapper.
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // A queue with one async reader whose writers decide how elements are kept.
        .target(name: "ReaderQueue"),
        .target(name: "ZeroMQ", dependencies: [
            "CZeroMQ", "ReaderQueue",
            .product(name: "DequeModule", package: "swift-collections"),
        ]),

        // The wire's JSON coders: Codable, fast, with the wire's date and money conventions.
        .target(name: "WireJSON", dependencies: ["Money"]),

        // The wire: envelopes, topics, publish/subscribe with snapshots, JSON-RPC.
        .target(name: "Bus", dependencies: [
            "ZeroMQ", "Money", "ReaderQueue", "WireJSON",
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // Exact money and shared domain values.
        .target(name: "Money"),
        .target(name: "Market", dependencies: ["Money", "WireJSON"]),
        // Every request, result and stream payload the services exchange.
        .target(name: "Messages", dependencies: ["Bus", "Market", "Money", "WireJSON"]),

        // Outside APIs as witness clients (live, test, mock).
        .target(
            name: "Feeds",
            dependencies: [
                "Market", "Money", "WireJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),

        // What every executable shares: flags, logging, metrics, lifecycle.
        .target(name: "ServiceSupport", dependencies: [
            "Bus", "Money",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // Each service's logic, as a library tests run in-process.
        .target(name: "RatesFetcherCore", dependencies: [
            "Messages", "Bus", "Feeds", "Market", "Money", "ServiceSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        .target(name: "ConverterCore", dependencies: ["Messages", "Bus", "Market", "Money", "ServiceSupport"]),
        .target(name: "PortfolioCore", dependencies: ["Messages", 
            "Bus", "Market", "Money", "ServiceSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "PresenterCore", dependencies: ["Messages",
            "Bus", "Market", "Money", "ServiceSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),

        service("rates-fetcher", core: "RatesFetcherCore"),
        service("converter", core: "ConverterCore"),
        service("portfolio", core: "PortfolioCore"),
        service("presenter", core: "PresenterCore"),

        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "BusTests", dependencies: ["Bus", "ReaderQueue"]),
        .testTarget(name: "WireJSONTests", dependencies: ["WireJSON", "WireJSONTesting", "Money"]),
        // Foundation's coders as the reference and random JSON edits, for the tests of the wire coders.
        .target(name: "WireJSONTesting", dependencies: ["WireJSON", "Money"], path: "Tests/WireJSONTesting"),
        .testTarget(name: "MessagesTests", dependencies: ["Messages", "Bus", "Market", "Money", "WireJSONTesting"]),
        .testTarget(name: "MoneyTests", dependencies: ["Money"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FeedsTests", dependencies: [
            "Feeds", "Market", "Money",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .testTarget(name: "RatesFetcherCoreTests", dependencies: [
            "RatesFetcherCore", "Bus", "Feeds", "Market", "Messages", "Money", "ZeroMQ",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ConverterCoreTests", dependencies: ["ConverterCore", "Bus", "Feeds", "Market", "Messages", "Money"]),
        .testTarget(name: "PortfolioCoreTests", dependencies: ["PortfolioCore", "Bus", "Feeds", "Market", "Messages", "Money"]),
        .testTarget(name: "PresenterCoreTests", dependencies: ["PresenterCore", "Bus", "Market", "Messages", "Money"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Bus", "Messages", "Market", "Money", "ZeroMQ", .product(name: "Logging", package: "swift-log")],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// An executable in `Services/<name>` whose logic lives in `core`.
func service(_ name: String, core: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .byName(name: core),
            "ServiceSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        path: "Services/\(name)",
        linkerSettings: [.unsafeFlags(leanLinking, .when(platforms: [.linux], configuration: .release))]
    )
}
