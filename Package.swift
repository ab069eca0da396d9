// swift-tools-version: 6.1
import PackageDescription

/// Release links that keep a service's resident memory down (bench/PROFILE.md, idle RSS): GNU ld packs
/// a binary's relative relocations into a few KB (gold cannot; in the static binaries they were 2.7 MB, all
/// read at start), and only the symbols the dynamic loader needs are exported (29,585 were, each a resident
/// `.dynsym` entry; nothing here looks symbols up with `dlsym`). Release builds load the Swift runtime and
/// Foundation as shared libraries (the Makefile's RELEASE_FLAGS), which the images keep in one shared layer.
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
        .executable(name: "tickwire-keys", targets: ["tickwire-keys"]),
        .executable(name: "tickwire-proxy", targets: ["tickwire-proxy"]),
        // One of rates-fetcher's built-in feeds as a plugin of a remote hub: `tickwire-feed bitso --ingest tcp://HOST:7103`.
        .executable(name: "tickwire-feed", targets: ["tickwire-feed"]),
        // Records streams into captures (docs/capture.md), and plays a capture into a hub as the `replay` feed plugin.
        .executable(name: "tickwire-recorder", targets: ["tickwire-recorder"]),
        .executable(name: "tickwire-replay", targets: ["tickwire-replay"]),
        // Exchanges' websocket feeds (Bitso, Kraken v2) as plugins: books, trades and quotes into a hub's ingest endpoint.
        .executable(name: "exchange-feed", targets: ["exchange-feed"]),
        // The health check in every image: calls a service's `health` within a deadline, exits 0 or 1.
        .executable(name: "tickwire-probe", targets: ["tickwire-probe"]),
        // Writes the contract as documents: JSON Schema, AsyncAPI and OpenRPC (docs/contract).
        .executable(name: "tickwire-contract", targets: ["tickwire-contract"]),
        // What a plugin needs: a typed client of every service (live, recorded test, failing), no engine.
        .library(name: "TickwireClients", targets: ["TickwireClients"]),
        // Where the stack's services are (default endpoints, flag/env settings) and the live connection to them.
        .library(name: "TickwireStack", targets: ["TickwireStack"]),
        // Every client's `mock`, which runs the services' engines in memory: for tests and demos, not for a service's live path.
        .library(name: "TickwireMocks", targets: ["TickwireMocks"]),
        // What a service of its own needs besides: flags, logging, metrics, lifecycle, and the bus to serve on.
        .library(name: "ServiceSupport", targets: ["ServiceSupport"]),
        // What a feed plugin in Swift needs: a connection to a hub's ingest endpoint and a runner of its poll or stream job.
        .library(name: "TickwireFeeds", targets: ["TickwireFeeds"]),
        .library(name: "TickwireContract", targets: ["TickwireContract"]),
        .library(name: "BusContract", targets: ["BusContract"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "Bus", targets: ["Bus"]),
        .library(name: "Money", targets: ["Money"]),
        .library(name: "Market", targets: ["Market"]),
        // Candles built from trades or quotes and their store, for the candles benchmark.
        .library(name: "Candles", targets: ["Candles"]),
        // The order book core, for the feeds and the book benchmark.
        .library(name: "OrderBook", targets: ["OrderBook"]),
        .library(name: "WireJSON", targets: ["WireJSON"]),
        // The portfolio's engine (gains, import) and its SQLite and PostgreSQL stores, for the benchmarks (bench/RESULTS.md, 8 and 9).
        .library(name: "PortfolioEngine", targets: ["PortfolioEngine"]),
        .library(name: "PortfolioCore", targets: ["PortfolioCore"]),
        .library(name: "PortfolioPostgres", targets: ["PortfolioPostgres"]),
        // What the libFuzzer targets of Fuzz/ run on each input (and FuzzReplayTests on the corpus).
        .library(name: "FuzzWireJSON", targets: ["FuzzWireJSON"]),
        .library(name: "FuzzSubscriber", targets: ["FuzzSubscriber"]),
        .library(name: "FuzzRPCMethods", targets: ["FuzzRPCMethods"]),
        // Child processes for the end-to-end tests, the plugin's and the benchmarks.
        .library(name: "ChildProcesses", targets: ["ChildProcesses"]),
        // `--version` for an executable target: `buildVersion`, its build's `git describe` (the plugin's package uses it too).
        .plugin(name: "BuildVersion", targets: ["BuildVersion"]),
    ],
    traits: [
        // `swift build --traits OTLP` (`make run OTLP=1`): `--otlp-endpoint` exports spans over OTLP/HTTP with swift-otel,
        // which costs the build minutes (README, "Logs and traces"); without it, spans are logged at debug level.
        .trait(name: "OTLP", description: "export spans over OTLP/HTTP with swift-otel (--otlp-endpoint)"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.23.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        // Exchange websocket feeds (exchange-feed): HummingbirdWSClient connects, HummingbirdWebSocket serves recorded sessions.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The portfolio's PostgreSQL store (`--database postgres://...`).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
        // FilePath for ChildProcesses on Linux (swift-subprocess's own dependency; Apple platforms have System).
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        // Spans and W3C trace context (issue 33): the Tracing API, and the traceparent parser and writer.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
        // The OTLP trait's exporter: swift-otel with OTLP/HTTP only (its default OTLPGRPC would add gRPC Swift). Without
        // the trait it is not even resolved.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0",
                 traits: [.trait(name: "OTLPHTTP", condition: .when(traits: ["OTLP"]))]),
    ],
    targets: [
        // MARK: Transport: libzmq, the wire's JSON, the bus. Knows nothing of money or markets.
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // zlib, for the captures' gzip (pkg-config zlib).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's malloc.h (mallopt, malloc_trim), which the Glibc module leaves out: a service's memory settings.
        .systemLibrary(name: "CMalloc"),
        // The capture format (docs/capture.md): gzip NDJSON of received messages, its rotating writer and streaming reader.
        .target(name: "Capture", dependencies: ["CZlib"]),
        // A queue with one async reader whose writers decide how elements are kept.
        .target(name: "ReaderQueue"),
        .target(name: "ZeroMQ", dependencies: [
            "CZeroMQ", "ReaderQueue",
            .product(name: "DequeModule", package: "swift-collections"),
        ]),
        // The wire's JSON coders: Codable, fast, with the wire's date convention; money comes in as `WireText`.
        .target(name: "WireJSON"),
        // Envelopes, publish/subscribe with snapshots (Clone pattern), JSON-RPC server and Lazy Pirate client.
        .target(name: "Bus", dependencies: [
            "BusContract", "ZeroMQ", "ReaderQueue", "WireJSON",
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // MARK: Contract: every method and stream, typed, with no transport.
        // Topics, RPC method and stream specs, JSON-RPC errors, snapshots, heartbeats, health.
        .target(name: "BusContract"),
        // Exact money and shared domain values.
        .target(name: "Money"),
        .target(name: "Market", dependencies: ["Money"]),
        // A level-2 order book kept exactly from a snapshot plus diffs, exchange sequence tracking, CRC32 and Kraken's book checksum.
        .target(name: "OrderBook", dependencies: ["Market", "Money"]),
        // Candles (1m, 5m, 1h, 1d) built exactly from trades or quotes, and their SQLite store with a retention per interval.
        .target(name: "Candles", dependencies: ["BusContract", "Market", "Money", "TickwireContract", .product(name: "GRDB", package: "GRDB.swift")]),
        // The four services' methods and streams, and every request, result and payload they carry.
        .target(name: "TickwireContract", dependencies: ["BusContract", "Market", "Money"]),
        // The presenter's views of every screen, how they are built from the streams and the other
        // services' answers (without HTTP or sockets), and its `view` method.
        .target(name: "PresenterViews", dependencies: [
            "BusContract", "TickwireContract", "Market", "Money",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // JSON Schemas of every message and method, and the AsyncAPI and OpenRPC documents made from them
        // (docs/contract); no service links it.
        .target(name: "ContractSchema", dependencies: ["BusContract", "TickwireContract", "PresenterViews", "Market", "Money"]),
        // The contract's hot values on the wire: money as WireText, quotes and prices member by member.
        .target(name: "ContractWire", dependencies: ["TickwireContract", "Market", "Money", "WireJSON"]),

        // MARK: Engines: the services' logic without transport, shared by the services and their mocks.
        // Exact conversion over derived rates and re-pricing into display currencies.
        .target(name: "Conversion", dependencies: [
            "BusContract", "TickwireContract", "Market", "Money", .product(name: "Logging", package: "swift-log"),
        ]),
        // The portfolio's state and rules: trades, valuations, the watch list, wallets, product totals;
        // its storage and its converter are passed in.
        .target(name: "PortfolioEngine", dependencies: [
            "BusContract", "TickwireContract", "Market", "Money", "WireJSON", .product(name: "Logging", package: "swift-log"),
        ]),

        // MARK: Clients: every service behind a witness struct (live, test, mock, failing).
        // Where the stack's services are and how a program connects to them: default endpoints, flag/env settings,
        // the live connection (context, timeouts, CURVE keys). No contract, no engine.
        .target(name: "TickwireStack", dependencies: ["Bus", "ZeroMQ", .product(name: "Logging", package: "swift-log")]),
        // The interfaces, live wiring, recorded `test` values and `failing` values; no engine.
        .target(
            name: "TickwireClients",
            dependencies: [
                "TickwireStack", "Bus", "BusContract", "TickwireContract", "PresenterViews", "Market", "Money", "ZeroMQ",
                // Not imported: linked for its conformances (money as WireText, quotes and prices member by member),
                // which WireJSON finds at run time, so every program with a client has the contract's fast wire.
                "ContractWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // Every client's `mock`: the services' engines run in memory (the only client target that links them).
        .target(name: "TickwireMocks", dependencies: [
            "TickwireClients", "Conversion", "PortfolioEngine", "PresenterViews", "Bus", "BusContract", "TickwireContract",
            "RatesFetcherEngine", "TickwireFeeds", "Candles",  // RatesFetcherClient.mock runs the service's engine and candle builder
            "Market", "Money", .product(name: "Logging", package: "swift-log"),
        ]),

        // MARK: Outside APIs as witness clients (live, test, mock).
        .target(
            name: "Feeds",
            dependencies: [
                "Market", "Money", "WireJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),

        // A feed's side of the hub's ingest endpoint: FeedConnection (numbered envelopes, heartbeats, CURVE) and FeedRunner.
        .target(name: "TickwireFeeds", dependencies: [
            "Bus", "BusContract", "ZeroMQ", "TickwireContract", "Market",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),  // tickwire_feed_errors_total
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),  // a poll's span, its values' trace
        ]),

        // Exchanges' websocket streams (Bitso diff-orders and trades, Kraken v2 book, trade and ticker) kept as exact L2 books,
        // with live, recorded test (a local websocket server replays them), mock and failing clients, and the feed that publishes them.
        .target(
            name: "ExchangeStreams",
            dependencies: [
                "BusContract", "Market", "Money", "OrderBook", "TickwireContract", "TickwireFeeds",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),  // Bitso's REST order book
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),  // the recorded sessions' local server
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),  // a frame cut off mid-message, in the replay server
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Fixtures")]
        ),

        // MARK: Services: what every executable shares, each service's logic, and the executables.
        .target(name: "ServiceSupport", dependencies: [
            "Bus", "BusContract", "TickwireStack", "WireJSON", "ZeroMQ",
            .target(name: "CMalloc", condition: .when(platforms: [.linux])),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // `--metrics`' HTTP listener: NIO's HTTP/1 codec alone, not Hummingbird (see MetricsServer.swift).
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // rates-fetcher's logic without a socket: built-in feed definitions and jobs, histories, validation, the coin
        // list; the service and its mock client both run it.
        .target(name: "RatesFetcherEngine", dependencies: [
            "Bus", "BusContract", "Feeds", "Market", "Money", "TickwireContract", "TickwireFeeds",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),  // the live feed clients' HTTPClient
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),  // tickwire_feed_skipped_total
        ]),
        .target(name: "RatesFetcherCore", dependencies: [
            "Candles", "TickwireStack", "RatesFetcherEngine", "TickwireFeeds", "BusContract",
            "TickwireContract", "ContractWire", "Bus", "Feeds", "Market", "Money", "ServiceSupport",
            "ZeroMQ",  // the feed hub's ingest socket (OwnedSocket, ZAPHandler)
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Prometheus", package: "swift-prometheus"),  // the feeds' freshness gauges
            .product(name: "Tracing", package: "swift-distributed-tracing"),  // a poll's span, its quotes' trace
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // rates-fetcher -> converter
        .target(name: "ConverterCore", dependencies: [
            "BusContract", "TickwireClients", "TickwireContract", "Conversion", "Bus", "Market", "Money", "ServiceSupport",
            .product(name: "Metrics", package: "swift-metrics"),  // quote -> price latency
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // converter, rates-fetcher -> portfolio
        .target(name: "PortfolioCore", dependencies: [
            "BusContract", "TickwireStack", "TickwireClients", "TickwireContract", "PortfolioEngine", "Bus", "Market", "Money", "ServiceSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The portfolio's store in PostgreSQL, behind the same witness as SQLite's (`--database postgres://...`).
        .target(name: "PortfolioPostgres", dependencies: [
            "PortfolioEngine", "TickwireContract", "BusContract", "Bus", "Money",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // portfolio, converter, rates-fetcher -> presenter
        .target(name: "PresenterCore", dependencies: [
            "BusContract", "TickwireStack", "TickwireClients", "TickwireContract", "PresenterViews", "Bus", "Market", "Money", "ServiceSupport",
            "ReaderQueue", .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),  // the HTTP/1 server's header limits
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),  // SSE events in their price's trace
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // publishers -> tickwire-proxy -> subscribers (libzmq's XSUB/XPUB proxy)
        .target(name: "ProxyCore", dependencies: [
            "Bus", "BusContract", "ServiceSupport", "TickwireStack", "ZeroMQ",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        service("rates-fetcher", core: "RatesFetcherCore", also: [.product(name: "AsyncHTTPClient", package: "async-http-client")]),
        service("converter", core: "ConverterCore", also: ["TickwireClients", "TickwireStack"]),
        service("portfolio", core: "PortfolioCore", also: [
            "PortfolioPostgres", "PortfolioEngine", "TickwireClients", "TickwireStack", .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        service("presenter", core: "PresenterCore", also: [  // Feeds and AsyncHTTPClient: the icons it fetches once
            "Feeds", "TickwireClients", "TickwireStack", .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // Makes a stack's CURVE certificates.
        .executableTarget(name: "tickwire-keys", dependencies: [
            "Bus", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Services/tickwire-keys", plugins: ["BuildVersion"]),
        service("tickwire-proxy", core: "ProxyCore"),
        // A built-in feed's definition (RatesFetcherEngine's BuiltInFeed) run by TickwireFeeds' runner into a hub's ingest endpoint.
        .executableTarget(name: "tickwire-feed", dependencies: [
            "RatesFetcherEngine", "TickwireFeeds", "ServiceSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Services/tickwire-feed", plugins: ["BuildVersion"]),
        // An exchange's websocket feed (ExchangeStreams) run as a plugin into a hub's ingest endpoint.
        .executableTarget(name: "exchange-feed", dependencies: [
            "ExchangeStreams", "TickwireFeeds", "ServiceSupport", "Market",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Services/exchange-feed", plugins: ["BuildVersion"]),
        // Record and replay (docs/capture.md): the recorder of streams into captures, and the `replay` feed plugin.
        .target(name: "RecorderCore", dependencies: [
            "Capture", "ZeroMQ", .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .target(name: "ReplayCore", dependencies: [
            "Capture", "TickwireFeeds", "Bus", "BusContract", "TickwireContract", "Market", "Money",
            .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        service("tickwire-recorder", core: "RecorderCore", also: ["Capture", "Bus"]),
        service("tickwire-replay", core: "ReplayCore", also: ["Capture", "TickwireFeeds"]),
        // Writes the contract as documents (docs/contract: JSON Schema, AsyncAPI, OpenRPC) or checks they are current.
        .executableTarget(name: "tickwire-contract", dependencies: [
            "ContractSchema", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Services/tickwire-contract", plugins: ["BuildVersion"]),
        // A container's or a pod's health check: one `health` call with a deadline, and its verdict.
        .target(name: "ProbeCore", dependencies: ["BusContract", "Bus", "ZeroMQ", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(
            name: "tickwire-probe",
            dependencies: ["ProbeCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/tickwire-probe",
            linkerSettings: [.unsafeFlags(leanLinking, .when(platforms: [.linux], configuration: .release))],
            plugins: ["BuildVersion"]
        ),

        // Generates `buildVersion` (`git describe --tags --always --dirty`, or "unknown") into an executable target.
        .plugin(name: "BuildVersion", capability: .buildTool()),

        // MARK: Tests, one target per module, then the contract suite and the end-to-end tests.
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "BusTests", dependencies: [
            "BusContract", "ZeroMQ", "Bus", "ReaderQueue",
            "ContractWire", "Market", "Money", "WireJSON", "WireJSONTesting",  // the direct codec of quotes on the bus's paths
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),  // spans and trace context across the bus
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "WireJSONTests", dependencies: ["WireJSON", "WireJSONTesting", "ContractWire", "Money"]),
        // Foundation's coders as the reference and random JSON edits, for the tests of the wire coders.
        .target(name: "ChildProcesses", dependencies: [
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
        ], path: "Tests/ChildProcesses"),
        .target(name: "WireJSONTesting", dependencies: ["WireJSON", "ContractWire", "Money"], path: "Tests/WireJSONTesting"),
        .testTarget(name: "TickwireContractTests", dependencies: [
            "BusContract", "TickwireContract", "PresenterViews", "ContractWire", "Bus", "Market", "Money", "WireJSON", "WireJSONTesting", "TickwireClients",
        ]),
        // Each schema against the services' recorded answers, the lists against the APIs, the documents against docs/contract.
        .testTarget(name: "ContractSchemaTests", dependencies: [
            "TickwireStack", "ContractSchema", "BusContract", "TickwireContract", "PresenterViews", "Market", "Money", "TickwireClients",
        ]),
        .testTarget(name: "MoneyTests", dependencies: ["Money"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CaptureTests", dependencies: [
            "Capture", "RecorderCore", "ReplayCore", "TickwireFeeds", "RatesFetcherCore", "Bus", "BusContract", "ZeroMQ", "TickwireContract", "Market", "Money",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "OrderBookTests", dependencies: ["OrderBook", "Market", "Money"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CandlesTests", dependencies: ["BusContract", "Candles", "Market", "Money", "TickwireContract"]),
        .testTarget(name: "FeedsTests", dependencies: [
            "Feeds", "Market", "Money",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "RatesFetcherCoreTests", dependencies: [
            "BusContract", "Candles", "RatesFetcherCore", "RatesFetcherEngine", "TickwireFeeds", "Bus", "Feeds", "Market", "TickwireContract", "Money", "ZeroMQ",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ExchangeStreamsTests", dependencies: [
            "ExchangeStreams", "OrderBook", "TickwireFeeds", "TickwireContract", "Bus", "BusContract", "Market", "Money",
            "RatesFetcherCore", "ZeroMQ",  // the feed hub in process, for the end-to-end test
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // RatesFetcherCore: the hub in process, for the tests against the real ingest endpoint.
        .testTarget(name: "TickwireFeedsTests", dependencies: [
            "TickwireFeeds", "RatesFetcherCore", "Bus", "BusContract", "ZeroMQ", "TickwireContract", "Market", "Money",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ConverterCoreTests", dependencies: [
            "BusContract", "ConverterCore", "Conversion", "Bus", "Feeds", "Market", "TickwireContract", "TickwireClients", "Money",
            "ServiceSupport", "TickwireStack",  // the converter's services in process, on its runtime's loop
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PortfolioCoreTests", dependencies: [
            "BusContract", "PortfolioCore", "PortfolioEngine", "Bus", "Feeds", "Market", "TickwireContract", "TickwireClients", "TickwireMocks", "Money",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], resources: [.copy("Fixtures")]),
        // The store contract over memory, SQLite and a real PostgreSQL (scripts/postgres-test.sh), and two replicas on one database.
        .testTarget(name: "PortfolioPostgresTests", dependencies: [
            "PortfolioPostgres", "PortfolioCore", "PortfolioEngine", "TickwireContract", "BusContract", "Money", "ChildProcesses",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PresenterCoreTests", dependencies: [
            "BusContract", "ServiceSupport", "PresenterCore", "PresenterViews", "Bus", "Market", "TickwireContract", "TickwireClients", "TickwireMocks", "Money",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        .testTarget(name: "ProxyCoreTests", dependencies: [
            "ProxyCore", "Bus", "BusContract", "ServiceSupport", "ZeroMQ",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // `--metrics`' listener, and the dashboard and scrape configuration in deploy/ checked against the metrics.
        .testTarget(name: "ServiceSupportTests", dependencies: [
            "ServiceSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
        ]),
        .testTarget(name: "ProbeCoreTests", dependencies: [
            "BusContract", "ProbeCore", "Bus", "ZeroMQ", .product(name: "Logging", package: "swift-log"),
        ]),
        // The same assertions against every client's live value (the real service in process) and its mock.
        .testTarget(name: "ClientContractTests", dependencies: [
            "BusContract", "PortfolioEngine", "TickwireStack", "TickwireClients", "TickwireContract", "PresenterViews", "ConverterCore", "PortfolioCore", "PresenterCore",
            "RatesFetcherCore", "ServiceSupport", "Feeds", "Bus", "Money", "Market", "TickwireMocks", "ChildProcesses",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The fuzz targets' checks of one input: WireJSON against Foundation, the Subscriber's frames, every service's RPC methods.
        .target(name: "FuzzWireJSON", dependencies: [
            "WireJSON", "WireJSONTesting", "ContractWire", "Market", "Money", "Bus", "BusContract", "TickwireContract",
        ], path: "Tests/FuzzTargets/WireJSON"),
        .target(name: "FuzzSubscriber", dependencies: [
            "Bus", "BusContract", "ZeroMQ", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/FuzzTargets/Subscriber"),
        .target(name: "FuzzRPCMethods", dependencies: [
            "Bus", "BusContract", "TickwireContract", "TickwireClients", "TickwireMocks", "PresenterViews", "Conversion", "PortfolioEngine",
            "ConverterCore", "PortfolioCore", "RatesFetcherCore", "RatesFetcherEngine", "ServiceSupport", "WireJSON", "WireJSONTesting",
            "Candles", "Market", "Money",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/FuzzTargets/RPCMethods"),
        // The seed corpus and every crash the fuzzers found, replayed through the checks.
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzWireJSON", "FuzzSubscriber", "FuzzRPCMethods", "Bus"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "BusContract", "Bus", "TickwireContract", "TickwireClients", "PresenterViews", "Market", "Money", "ZeroMQ", "ChildProcesses",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// An executable in `Services/<name>` whose logic lives in `core`.
func service(_ name: String, core: String, also: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: also + [
            .byName(name: core),
            "ServiceSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        path: "Services/\(name)",
        linkerSettings: [.unsafeFlags(leanLinking, .when(platforms: [.linux], configuration: .release))],
        plugins: ["BuildVersion"]
    )
}
