// swift-tools-version: 6.1
import PackageDescription

/// Tickwire's benchmarks, a package of their own so the main package never builds them.
///
/// - `tickwire-bench`: the release executable `make bench` runs. It measures with
///   `ContinuousClock`, runs the Python peers under `../bench/` in the same run and
///   prints each figure with its ratio (see ../bench/RESULTS.md).
/// - `TickwireBenchmarks`: the same hot paths as ordo-one/benchmark micro-benchmarks
///   (`swift package --scratch-path .build benchmark`), for allocation and instruction counts.
let package = Package(
    name: "tickwire-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "tickwire", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
    ],
    targets: [
        .executableTarget(
            name: "tickwire-bench",
            dependencies: [
                .product(name: "Bus", package: "tickwire"),
                .product(name: "BusContract", package: "tickwire"),
                .product(name: "Market", package: "tickwire"),
                .product(name: "Candles", package: "tickwire"),  // 12: candles
                .product(name: "TickwireClients", package: "tickwire"),
                .product(name: "TickwireContract", package: "tickwire"),
                .product(name: "TickwireFeeds", package: "tickwire"),  // 10: the feed plugins
                .product(name: "Money", package: "tickwire"),
                .product(name: "OrderBook", package: "tickwire"),  // 11: book maintenance
                .product(name: "PortfolioCore", package: "tickwire"),
                .product(name: "PortfolioEngine", package: "tickwire"),
                .product(name: "PortfolioPostgres", package: "tickwire"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ZeroMQ", package: "tickwire"),
                .product(name: "WireJSON", package: "tickwire"),  // profile-direct: the direct wire API
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        .executableTarget(
            name: "TickwireBenchmarks",
            dependencies: [
                .product(name: "Bus", package: "tickwire"),
                .product(name: "Market", package: "tickwire"),
                .product(name: "Money", package: "tickwire"),
                .product(name: "TickwireClients", package: "tickwire"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TickwireBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
