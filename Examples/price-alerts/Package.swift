// swift-tools-version: 6.1
import PackageDescription

/// price-alerts: rules on the converter's prices, and the alerts they fire on `alert.<ASSET>.<FIAT>`.
///
/// A Tickwire service in a package of its own, as a plugin would be: it depends on the main package by
/// path (or by URL) and uses only its library products — `TickwireClients` (the contract and a client of
/// every service), `TickwireStack` (where the stack's services are, and the connection to them),
/// `ServiceSupport` (flags, logging, metrics, lifecycle), `Bus` (the publisher and the JSON-RPC server to
/// serve on) and, for `--converter mock` and its tests only, `TickwireMocks` (the converter's mock, which links
/// the converter's engine). Its own contract and client are its library product `PriceAlertsAPI`: the main
/// package knows nothing of it. The versions of the shared dependencies are the main package's.
let package = Package(
    name: "price-alerts",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "price-alerts", targets: ["price-alerts"]),
        // What another program needs to talk to price-alerts: its methods, messages and topics, and its client.
        .library(name: "PriceAlertsAPI", targets: ["PriceAlertsAPI"]),
    ],
    dependencies: [
        .package(name: "tickwire", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
    ],
    targets: [
        // The contract (methods, messages, the alert topic, the panel) and the client (live, test, mock, failing),
        // with the recorded answers the test client returns.
        .target(
            name: "PriceAlertsAPI",
            dependencies: [
                .product(name: "TickwireClients", package: "tickwire"),
                .product(name: "TickwireStack", package: "tickwire"),
                .product(name: "TickwireContract", package: "tickwire"),
                .product(name: "BusContract", package: "tickwire"),
                .product(name: "Bus", package: "tickwire"),
                .product(name: "Money", package: "tickwire"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // The rules, their store, the methods and the services: everything but `main`.
        .target(name: "PriceAlertsCore", dependencies: [
            "PriceAlertsAPI",
            .product(name: "TickwireClients", package: "tickwire"),
            .product(name: "TickwireStack", package: "tickwire"),
            .product(name: "TickwireContract", package: "tickwire"),
            .product(name: "BusContract", package: "tickwire"),
            .product(name: "Money", package: "tickwire"),
            .product(name: "ServiceSupport", package: "tickwire"),
            .product(name: "Bus", package: "tickwire"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // converter -> price-alerts
        .executableTarget(
            name: "price-alerts",
            dependencies: [
                "PriceAlertsCore",
                .product(name: "TickwireClients", package: "tickwire"),
                .product(name: "TickwireMocks", package: "tickwire"),  // `--converter mock`: the converter's mock
                .product(name: "ServiceSupport", package: "tickwire"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/price-alerts",
            plugins: [.plugin(name: "BuildVersion", package: "tickwire")]  // --version: the build's git describe
        ),
        // Unit and contract tests with no socket, and an end-to-end test of the real executables.
        .testTarget(
            name: "PriceAlertsCoreTests",
            dependencies: [
                "PriceAlertsCore", "PriceAlertsAPI",
                .product(name: "TickwireClients", package: "tickwire"),
                .product(name: "TickwireStack", package: "tickwire"),
                .product(name: "TickwireMocks", package: "tickwire"),
                .product(name: "TickwireContract", package: "tickwire"),
                .product(name: "BusContract", package: "tickwire"),
                .product(name: "Money", package: "tickwire"),
                .product(name: "ServiceSupport", package: "tickwire"),
                .product(name: "Bus", package: "tickwire"),
                .product(name: "ChildProcesses", package: "tickwire"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
