// swift-tools-version: 6.1
import PackageDescription

/// The whole local stack in one build: the main package's executables and the price-alerts plugin's,
/// built from this root so that every shared dependency (SwiftNIO, Hummingbird, GRDB, ...) is compiled
/// once, into deploy/local/.build, instead of once for the main package and again for the plugin's own
/// package. `make release` builds each executable product from here (`swift build --product NAME`);
/// the main package and the plugin stay packages of their own, unaware of this one.
let package = Package(
    name: "tickwire-stack",
    platforms: [.macOS(.v15)],
    traits: [
        // `make run OTLP=1` (`swift build --traits OTLP`): the main package's OTLP trait, so `--otlp-endpoint`
        // exports spans over OTLP/HTTP (README, "Logs and traces").
        .trait(name: "OTLP", description: "build the main package with its OTLP trait (swift-otel)"),
    ],
    dependencies: [
        .package(name: "tickwire", path: "../..", traits: [.trait(name: "OTLP", condition: .when(traits: ["OTLP"]))]),
        .package(name: "price-alerts", path: "../../Examples/price-alerts"),
    ],
    targets: []
)
