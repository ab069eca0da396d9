import Bus
import Candles
import TickwireClients
import Foundation
import Market
import TickwireContract
import Money
import PortfolioCore
import PortfolioEngine
import PortfolioPostgres
import ZeroMQ

// tickwire-bench: Tickwire's benchmarks against their Python peers and raw libzmq (issue 6).
//
//   tickwire-bench [--quick] [--only bus,latency,rpc,convert,format,services,repricing,gains,import,ingest,book,capture,replay,candles] [--no-peers]
//                  [--postgres postgres://user@host:port/database]  (9. also imports into PostgreSQL)
//                  [--no-callgrind]  (1d. counts no instructions; they are counted where valgrind is installed)
//                  [--bench-dir bench] [--results bench/RESULTS.md] [--command "make bench"]
//   tickwire-bench profile-bus N        encode + decode N envelopes in-process (for callgrind)
//   tickwire-bench profile-direct N     the direct wire API alone over N envelopes (for callgrind)
//   tickwire-bench profile-convert N    the conversion loop over N transactions (for callgrind)
//   tickwire-bench profile-rpc N        N `convert` round trips in process, no socket (for callgrind)
//   tickwire-bench profile-rpc-loop N   N `convert` round trips over tcp, server and caller each on a ServiceLoop (for callgrind)
//   tickwire-bench profile-rpc-threads N
//                                       the same in today's layout: no loops, socket threads and the global pool
//   tickwire-bench profile-throughput bus|subscriber|subscriber-loop|sockets|raw [N]
//                                       one throughput run of benchmark 1 (for perf record -e cpu-clock)
//   tickwire-bench portfolio-files DIR  writes benchmarks 8 and 9's activities.csv and prices.json into DIR
//   tickwire-bench flood-prices PUB REP SECONDS RATE
//                                       a stand-in converter publishing price.* flat out (bench/services.py)

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if arguments.first == "profile-bus" {
    let count = Int(arguments.dropFirst().first ?? "") ?? 20_000
    var checksum: UInt64 = 0
    // The topic frame as the socket hands it over: made once, as the publisher's is, not counted per message.
    let topic = Data(BusBench.topics[0].rawValue.utf8)
    for index in 0..<count {
        let envelope = Envelope(type: "quote", seq: UInt64(index + 1), time: Date(), source: "bitso", data: sampleQuotes[index & 63])
        let body = try Wire.encode(envelope)
        let message = try BusMessage(frames: [topic, body])
        checksum &+= try message.decode(Quote.self).seq
    }
    print("profile-bus \(count) checksum \(checksum)")
    exit(0)
}
if arguments.first == "profile-direct" {
    let count = Int(arguments.dropFirst().first ?? "") ?? 20_000
    try DirectProfile.checkBytes()
    let outcome = try DirectProfile.run(count: count)
    guard outcome.fallbacks == 0 else {
        FileHandle.standardError.write(Data("profile-direct: \(outcome.fallbacks) of \(count) messages fell back to the tape\n".utf8))
        exit(1)
    }
    print("profile-direct \(count) checksum \(outcome.checksum)")
    exit(0)
}
if arguments.first == "profile-throughput", arguments.count >= 2 {
    // One throughput run on its own, for a sampling profiler (`perf record -e cpu-clock -g`) or callgrind.
    let count = Int(arguments.dropFirst(2).first ?? "") ?? 200_000
    let run: @Sendable () async throws -> BusBench.Result
    switch arguments[1] {
    case "bus": run = { try await BusBench.encoded(count: count) }
    case "subscriber": run = { try await BusBench.subscribed(count: count) }
    case "subscriber-loop": run = { try await BusBench.subscribed(count: count, onLoop: true) }
    case "sockets": run = { try await BusBench.busSocketsRaw(count: count) }
    case "raw": run = { try await BusBench.zmqRaw(count: count) }
    default:
        print("usage: tickwire-bench profile-throughput bus|subscriber|subscriber-loop|sockets|raw [N]")
        exit(2)
    }
    let result = try waitingOnSemaphore(run)
    print("profile-throughput \(arguments[1]) \(count): \(Int(result.messagesPerSecond)) msg/s, CPU \(fmt(result.cpuMicrosecondsPerMessage, 2)) us/msg")
    exit(0)
}
if arguments.first == "profile-rpc" {
    // N `convert` round trips in process, no socket (issue 31, stage 3): see `RPCProfile`.
    let count = Int(arguments.dropFirst().first ?? "") ?? 4_000
    let checksum = try waitingOnSemaphore { try await RPCProfile.run(count: count) }
    print("profile-rpc \(count) checksum \(checksum)")
    exit(0)
}
if arguments.first == "profile-rpc-loop" || arguments.first == "profile-rpc-threads" {
    // N `convert` round trips through the sockets in one process (issue 31, stage 2), as benchmark 2's rows make them
    // (500 warm-up calls first, which the margin between two N cancels): every thread counted, libzmq's I/O threads too.
    let count = Int(arguments.dropFirst().first ?? "") ?? 4_000
    let layout: LatencyBench.RPCLayout = arguments.first == "profile-rpc-loop" ? .loops : .threads
    let (_, last, _) = try waitingOnSemaphore { try await LatencyBench.rpcRoundTrip(calls: count, layout: layout) }
    print("\(arguments[0]) \(count) last \(last)")
    exit(0)
}
if arguments.first == "rpc-floor-server", arguments.count == 2 {
    try LatencyBench.rpcFloorServer(endpoint: arguments[1])
    exit(0)
}
if arguments.first == "flood-prices", arguments.count == 5, let seconds = Double(arguments[3]), let rate = Double(arguments[4]) {
    try await PriceFlood.run(pub: arguments[1], rep: arguments[2], seconds: seconds, rate: rate)
    exit(0)
}
if arguments.first == "profile-price" {
    // The presenter's share of a `price.*` update, without sockets: the subscriber's parse, then the decode.
    let count = Int(arguments.dropFirst().first ?? "") ?? 20_000
    let publisherSide = try PriceFlood.updates()
    let bodies = try publisherSide.prefix(100).enumerated().map { index, update in
        (Data(update.0.rawValue.utf8), try Wire.encode(Envelope(type: "price", seq: UInt64(index + 1), time: Date(), source: "converter", data: update.1)))
    }
    var latest: [String: AssetPrice] = [:]
    for index in 0..<count {
        let (topic, body) = bodies[index % bodies.count]
        let message = try BusMessage(frames: [topic, body])
        let price = try message.decode(AssetPrice.self).data
        latest[price.asset + "." + price.currency] = price
    }
    print("profile-price \(count) prices \(latest.count)")
    exit(0)
}
if arguments.first == "portfolio-files", arguments.count == 2 {
    let files = PortfolioBench.generate(count: 100_000)
    try FileManager.default.createDirectory(atPath: arguments[1], withIntermediateDirectories: true)
    try files.csv.write(toFile: "\(arguments[1])/activities.csv", atomically: true, encoding: .utf8)
    try JSONSerialization.data(withJSONObject: files.prices, options: [.sortedKeys]).write(to: URL(fileURLWithPath: "\(arguments[1])/prices.json"))
    exit(0)
}
if arguments.first == "profile-convert" {
    let count = Int(arguments.dropFirst().first ?? "") ?? 200_000
    let transactions = ConversionBench.transactions(count: count)
    print("profile-convert \(count) total \(try ConversionBench.total(transactions, graph: try ConversionBench.graph()))")
    exit(0)
}

let quick = arguments.contains("--quick")
let runPeers = !arguments.contains("--no-peers")
let only = Set((option("--only") ?? "bus,latency,rpc,convert,format,services,repricing,gains,import,ingest,book,capture,candles").split(separator: ",").map(String.init))
let benchDirectory = option("--bench-dir") ?? "bench"
let resultsPath = option("--results") ?? "\(benchDirectory)/RESULTS.md"
let command = option("--command") ?? (["tickwire-bench"] + arguments).joined(separator: " ")
let peers = Peers(directory: URL(fileURLWithPath: benchDirectory).standardizedFileURL.path, python: ProcessInfo.processInfo.environment["PYTHON"] ?? "python3")

/// The 1, 5 and 15 minute load averages.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}
let loadAtStart = loadAverage()
let busCount = quick ? 50_000 : 200_000
/// Paired rounds of the bus, RPC and repricing figures (issue 31: the median of at least 5, with the spread).
let pairedRoundCount = quick ? 3 : 5
let runCallgrind = !arguments.contains("--no-callgrind")
let latencySeconds = quick ? 2 : 5
let rpcCalls = quick ? 2_000 : 20_000
let conversionCount = 1_000_000
let formatCount = 100_000

struct Row {
    var benchmark: String
    var tickwire: String
    var peer: String
    var ratio: String
    var target: String
    var met: String
}
var rows: [Row] = []
var notes: [String] = []
/// Why the run fails: a Swift figure that differs from its Python peer's.
var failures: [String] = []

func fmt(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
func rate(_ value: Double) -> String { "\(fmt(value)) msg/s" }
func ratio(_ value: Double?) -> String { value.map { "\(fmt($0, 2))x" } ?? "n/a" }
func say(_ text: String) {
    print(text)
    fflush(nil)
}

// 1. Bus throughput
if only.contains("bus") {
    say("== 1. bus throughput: \(busCount) quote.* envelopes, 1 PUB -> 1 SUB, tcp loopback, \(pairedRoundCount) paired rounds")
    // Each round runs every figure back to back (Tickwire through its Subscriber, the codec-only Bus, the Bus's sockets,
    // raw libzmq, and the Python peers), so a slow spell of the shared machine falls on all of them alike; a ratio is
    // the median of the rounds' own ratios.
    var rounds = PairedRounds()
    for round in 1...pairedRoundCount {
        let subscribed = try await BusBench.subscribed(count: busCount)
        let onLoop = try await BusBench.subscribed(count: busCount, onLoop: true)
        let bus = try await BusBench.encoded(count: busCount)
        let sockets = try await BusBench.busSocketsRaw(count: busCount)
        let raw = try await BusBench.zmqRaw(count: busCount)
        var pyEncoded: Double?, pyRaw: Double?
        if runPeers {
            pyEncoded = await peers.run("bus_throughput.py", ["encoded", "--count", "\(busCount)"])?.number("messages_per_second")
            pyRaw = await peers.run("bus_throughput.py", ["raw", "--count", "\(busCount)"])?.number("messages_per_second")
        }
        // The limit: the fastest run without JSON in this round (Swift Socket, the Bus's sockets or pyzmq raw).
        let limit = max(raw.messagesPerSecond, sockets.messagesPerSecond, pyRaw ?? 0)
        for (name, run) in [("subscriber", subscribed), ("subscriber loop", onLoop), ("bus", bus), ("sockets", sockets), ("raw", raw)] {
            rounds.record(name, run.messagesPerSecond)
            rounds.record("\(name) cpu", run.cpuMicrosecondsPerMessage)
            rounds.recordRatio("\(name) / python", run.messagesPerSecond, pyEncoded)
            rounds.recordRatio("\(name) / limit", run.messagesPerSecond * 100, limit)
            rounds.recordRatio("\(name) / python raw", run.messagesPerSecond, pyRaw)
        }
        rounds.record("python", pyEncoded)
        rounds.record("python raw", pyRaw)
        rounds.record("limit", limit)
        rounds.recordRatio("cpu subscriber / raw", subscribed.cpuMicrosecondsPerMessage, raw.cpuMicrosecondsPerMessage)
        say("round \(round): Subscriber \(rate(subscribed.messagesPerSecond)) (\(subscribed.received) taken, CPU \(fmt(subscribed.cpuMicrosecondsPerMessage, 2)) us/msg); "
            + "Subscriber on a ServiceLoop \(rate(onLoop.messagesPerSecond)) (\(onLoop.received) taken, CPU \(fmt(onLoop.cpuMicrosecondsPerMessage, 2))); "
            + "codec-only Bus \(rate(bus.messagesPerSecond)) (CPU \(fmt(bus.cpuMicrosecondsPerMessage, 2))); Bus sockets \(rate(sockets.messagesPerSecond)) "
            + "(CPU \(fmt(sockets.cpuMicrosecondsPerMessage, 2))); raw \(rate(raw.messagesPerSecond)) (CPU \(fmt(raw.cpuMicrosecondsPerMessage, 2))); "
            + "pyzmq+orjson \(pyEncoded.map(rate) ?? "n/a"), pyzmq raw \(pyRaw.map(rate) ?? "n/a"); "
            + "Subscriber / limit \(fmt(subscribed.messagesPerSecond / limit * 100, 1)) %, / pyzmq+orjson \(ratio(pyEncoded.map { subscribed.messagesPerSecond / $0 }))")
        for (run, which) in [(subscribed, "Subscriber"), (onLoop, "Subscriber on a ServiceLoop")] where run.received < busCount {
            notes.append("Bus: in round \(round) the \(which) passed on \(run.received) of \(busCount) messages (it re-synchronised from a snapshot).")
        }
    }
    let body = try BusBench.sampleFrames()[1].count
    func rates(_ name: String) -> String { rounds.text(name, 0, " msg/s") }
    let pyText = rounds["python"].map { "\($0.text(0, " msg/s")) (pyzmq+orjson)" } ?? "n/a"
    let limitText = "\(rates("limit")) (fastest raw of the round)"
    let toPython = rounds.median("subscriber / python"), toLimit = rounds.median("subscriber / limit")
    say("Subscriber / pyzmq+orjson: \(rounds.text("subscriber / python", 2, "x")) (target >= 10x: \(toPython.map { $0 >= 10 ? "met" : "MISSED" } ?? "no peer")); "
        + "Subscriber / raw limit: \(rounds.text("subscriber / limit", 1, " %")) (target >= 50 %: \(toLimit.map { $0 >= 50 ? "met" : "MISSED" } ?? "?")); "
        + "codec-only Bus: \(rounds.text("bus / python", 2, "x")), \(rounds.text("bus / limit", 1, " %"))")
    rows.append(Row(benchmark: "1. Bus through the real Subscriber (sequence tracking, queue, consumer task decodes), \(body) B JSON, vs pyzmq+orjson",
                    tickwire: rates("subscriber"), peer: pyText, ratio: rounds.text("subscriber / python", 2, "x"),
                    target: ">= 10x", met: toPython.map { $0 >= 10 ? "yes" : "NO" } ?? "?"))
    rows.append(Row(benchmark: "1. Bus through the real Subscriber vs raw libzmq limit (same bytes)", tickwire: rates("subscriber"),
                    peer: limitText, ratio: rounds.text("subscriber / limit", 1, " %"), target: ">= 50 %",
                    met: toLimit.map { $0 >= 50 ? "yes" : "NO" } ?? "?"))
    // Informative: the product's presenter keeps its own threads; a service whose Subscriber is on its loop reads this way.
    rows.append(Row(benchmark: "1. Bus through the real Subscriber on a ServiceLoop (its socket read and its tasks run by the loop's thread, the consumer task preferring the loop; informative) vs pyzmq+orjson",
                    tickwire: rates("subscriber loop"), peer: pyText, ratio: rounds.text("subscriber loop / python", 2, "x"), target: "-", met: "-"))
    rows.append(Row(benchmark: "1. Bus through the real Subscriber on a ServiceLoop vs raw libzmq limit (same bytes)", tickwire: rates("subscriber loop"),
                    peer: limitText, ratio: rounds.text("subscriber loop / limit", 1, " %"), target: "-", met: "-"))
    rows.append(Row(benchmark: "1. Bus codec only (Publisher.publish -> SUB socket -> BusMessage.decode, no Subscriber) vs pyzmq+orjson",
                    tickwire: rates("bus"), peer: pyText, ratio: rounds.text("bus / python", 2, "x"), target: "-", met: "-"))
    rows.append(Row(benchmark: "1. Bus codec only vs raw libzmq limit (same bytes)", tickwire: rates("bus"), peer: limitText,
                    ratio: rounds.text("bus / limit", 1, " %"), target: "-", met: "-"))
    let pyRawText = rounds["python raw"].map { "\($0.text(0, " msg/s")) (pyzmq raw)" } ?? "n/a"
    rows.append(Row(benchmark: "1a. raw: ZeroMQ Socket (Swift), blocking", tickwire: rates("raw"),
                    peer: pyRawText, ratio: rounds.text("raw / python raw", 2, "x"), target: "-", met: "-"))
    rows.append(Row(benchmark: "1b. raw: Bus sockets (LockedSocket PUB -> OwnedSocket SUB), no JSON", tickwire: rates("sockets"),
                    peer: pyRawText, ratio: rounds.text("sockets / python raw", 2, "x"), target: "-", met: "-"))
    rows.append(Row(benchmark: "1c. CPU per message, all threads: Subscriber / Subscriber on a ServiceLoop / codec-only Bus / Bus sockets / raw",
                    tickwire: ["subscriber", "subscriber loop", "bus", "sockets", "raw"].map { rounds.median("\($0) cpu").map { fmt($0, 2) } ?? "-" }.joined(separator: " / ") + " us",
                    peer: "-", ratio: "\(rounds.text("cpu subscriber / raw", 1, "x")) raw", target: "-", met: "-"))
    if !runCallgrind {
        say("callgrind: skipped (--no-callgrind)")
        notes.append("Bus instructions per message (1d): not counted, the run had `--no-callgrind`.")
    } else if let reason = await Callgrind.unavailable() {
        say("callgrind: skipped, \(reason)")
        notes.append("Bus instructions per message (1d): not counted, \(reason).")
    } else {
        let (small, large) = quick ? (2_000, 4_000) : (10_000, 20_000)
        say("== 1d. callgrind: instructions per message, the margin between \(small) and \(large) messages")
        var counts: [String: Double] = [:]
        for (name, mode) in [("codec", ["profile-bus"]), ("direct", ["profile-direct"]), ("subscriber", ["profile-throughput", "subscriber"]),
                             ("subscriber loop", ["profile-throughput", "subscriber-loop"]), ("bus", ["profile-throughput", "bus"]),
                             ("sockets", ["profile-throughput", "sockets"]), ("raw", ["profile-throughput", "raw"])] {
            do {
                counts[name] = try await Callgrind.perMessage(mode, small: small, large: large)
                say("callgrind \(mode.joined(separator: " ")): \(fmt(counts[name]!)) instructions per message")
            } catch {
                say("callgrind \(mode.joined(separator: " ")): \(error)")
            }
        }
        func count(_ name: String) -> String { counts[name].map { fmt($0) } ?? "-" }
        rows.append(Row(benchmark: "1d. instructions per message (callgrind, all threads): Subscriber / Subscriber on a ServiceLoop / codec-only Bus / Bus sockets / raw",
                        tickwire: ["subscriber", "subscriber loop", "bus", "sockets", "raw"].map(count).joined(separator: " / "), peer: "-",
                        ratio: counts["subscriber"].flatMap { s in counts["raw"].map { "\(fmt(s / $0, 1))x raw" } } ?? "-", target: "-", met: "-"))
        rows.append(Row(benchmark: "1d. codec alone: encode + decode of one quote envelope (callgrind, `profile-bus`), instructions",
                        tickwire: count("codec"), peer: "-", ratio: "-", target: "<= 4000", met: counts["codec"].map { $0 <= 4_000 ? "yes" : "NO" } ?? "?"))
        // The direct API alone, without the product's `Data`, `[Data]` and `BusMessage`: what the codec target's path
        // (the row above) would cost once the product's API around it is gone.
        rows.append(Row(benchmark: "1d. direct API alone: `Envelope<Quote>` into a reused `WireBuffer`, topic bytes, `decodeDirect` (callgrind, `profile-direct`), instructions",
                        tickwire: count("direct"), peer: "-", ratio: "-", target: "-", met: "-"))
    }
}

// 2. Latency
if only.contains("latency") {
    say("== 2. publish-to-decode latency at 10,000 msg/s for \(latencySeconds) s (+1 s warm-up)")
    let latency = try await LatencyBench.publishToDecode(rate: 10_000, seconds: latencySeconds)
    say("tickwire Bus: p50 \(fmt(latency.p50, 1)) us, p99 \(fmt(latency.p99, 1)) us, p99.9 \(fmt(latency.p999, 1)) us, max \(fmt(latency.max, 1)) us (\(latency.samples) samples)")
    var py: [String: Any]?
    if runPeers {
        py = await peers.run("bus_latency.py", ["--rate", "10000", "--seconds", "\(latencySeconds)"])
        if let py { say("python pyzmq+orjson: p50 \(fmt(py.number("p50") ?? .nan, 1)) us, p99 \(fmt(py.number("p99") ?? .nan, 1)) us, p99.9 \(fmt(py.number("p999") ?? .nan, 1)) us") }
    }
    for (label, key, value) in [("p50", "p50", latency.p50), ("p99", "p99", latency.p99), ("p99.9", "p999", latency.p999)] {
        let peerValue = py?.number(key)
        rows.append(Row(benchmark: "2. publish-to-decode \(label) @10k msg/s", tickwire: "\(fmt(value, 1)) us",
                        peer: peerValue.map { "\(fmt($0, 1)) us" } ?? "n/a",
                        ratio: ratio(peerValue.map { $0 / value }),
                        target: label == "p99" ? "< 1000 us" : "-", met: label == "p99" ? (value < 1000 ? "yes" : "NO") : "-"))
    }
}
if only.contains("rpc") {
    say("== 2b. RPC round trip: \(rpcCalls) sequential `convert` calls, RPCClient -> RPCServer, tcp loopback, each side on a ServiceLoop and "
        + "in today's layout (no loops), against pyzmq and the raw libzmq REQ <-> REP floor, \(pairedRoundCount) paired rounds")
    var rounds = PairedRounds()
    let labels: [(String, String, KeyPath<LatencyBench.Percentiles, Double>)] = [("p50", "p50", \.p50), ("p99", "p99", \.p99), ("p99.9", "p999", \.p999), ("max", "max", \.max)]
    // Each round: both layouts of Tickwire, the peer and the floor back to back.
    let layouts: [LatencyBench.RPCLayout] = [.loops, .threads]
    for round in 1...pairedRoundCount {
        var measured: [(LatencyBench.RPCLayout, LatencyBench.Percentiles, String, Int)] = []
        for layout in layouts {
            let (rpc, last, stalls) = try await LatencyBench.rpcRoundTrip(calls: rpcCalls, layout: layout)
            measured.append((layout, rpc, last, stalls))
            if stalls > 0 {
                notes.append("RPC: in round \(round) (\(layout.rawValue)) \(stalls) of \(rpcCalls) `convert` calls took over 1 s (max \(fmt(rpc.max / 1000, 0)) ms): a reply lost by RPCClient and recovered by its Lazy Pirate retry after the 2 s timeout.")
            }
        }
        var py: [String: Any]?
        if runPeers { py = await peers.run("rpc_latency.py", ["--calls", "\(rpcCalls)"]) }
        let floor = try await LatencyBench.rpcFloor(calls: rpcCalls)
        for (label, key, path) in labels {
            let base = floor[keyPath: path]
            for (layout, rpc, _, _) in measured {
                let mine = rpc[keyPath: path]
                rounds.record("\(layout.rawValue) \(label)", mine)
                rounds.recordRatio("\(layout.rawValue) / python \(label)", mine, py?.number(key))
                rounds.recordRatio("\(layout.rawValue) / floor \(label)", mine, base)
            }
            rounds.record("python \(label)", py?.number(key))
            rounds.record("floor \(label)", base)
            rounds.recordRatio("floor / python \(label)", base, py?.number(key))
        }
        say("round \(round): "
            + measured.map { layout, rpc, last, stalls in
                "tickwire (\(layout.rawValue)) p50 \(fmt(rpc.p50, 1)) us, p99 \(fmt(rpc.p99, 1)) us (last answer \(last), \(stalls) calls > 1 s); " }.joined()
            + "pyzmq p50 \(py?.number("p50").map { fmt($0, 1) } ?? "n/a") us, p99 \(py?.number("p99").map { fmt($0, 1) } ?? "n/a") us; "
            + "raw REQ <-> REP floor p50 \(fmt(floor.p50, 1)) us, p99 \(fmt(floor.p99, 1)) us")
    }
    for layout in layouts {
        let name = layout.rawValue
        for (label, _, _) in labels {
            let judged = layout == .loops && (label == "p50" || label == "p99")
            let toPython = rounds.median("\(name) / python \(label)"), toFloor = rounds.median("\(name) / floor \(label)")
            let floorShare = rounds.median("floor / python \(label)")
            // 0.5x pyzmq is impossible where the floor measured in the same rounds is itself above half of pyzmq's.
            let halfPossible = floorShare.map { $0 <= 0.5 } ?? true
            var target = "-", met = "-", verdict = ""
            if judged {
                if halfPossible {
                    target = "<= 0.5x pyzmq"
                    met = toPython.map { $0 <= 0.5 ? "yes" : "NO" } ?? "?"
                    verdict = "judged against 0.5x pyzmq (the floor is \(rounds.text("floor / python \(label)", 2, "x")) pyzmq, so half is possible)"
                } else {
                    target = "<= 1.3x the floor (0.5x pyzmq is below the floor)"
                    met = toFloor.map { $0 <= 1.3 ? "yes" : "NO" } ?? "?"
                    verdict = "judged against 1.3x the floor (the floor is \(rounds.text("floor / python \(label)", 2, "x")) pyzmq: 0.5x pyzmq is impossible)"
                }
            }
            say("RPC \(label) (\(name)): tickwire \(rounds.text("\(name) \(label)", 1, " us")), pyzmq \(rounds.text("python \(label)", 1, " us")), "
                + "floor \(rounds.text("floor \(label)", 1, " us")); tickwire / pyzmq \(rounds.text("\(name) / python \(label)", 2, "x")), "
                + "tickwire / floor \(rounds.text("\(name) / floor \(label)", 2, "x"))\(judged ? "; \(verdict): \(met == "yes" ? "met" : "MISSED")" : "")")
            rows.append(Row(benchmark: "2. RPC `convert` round trip \(label), \(layout.label) (ratio: Tickwire's time over the peer's and over the floor's)",
                            tickwire: rounds.text("\(name) \(label)", 1, " us"),
                            peer: "\(rounds.text("python \(label)", 1, " us")) (pyzmq REQ/ROUTER+orjson+decimal); floor \(rounds.text("floor \(label)", 1, " us")) (raw libzmq REQ <-> REP, Swift)",
                            ratio: "\(rounds.text("\(name) / python \(label)", 2, "x")) pyzmq; \(rounds.text("\(name) / floor \(label)", 2, "x")) floor",
                            target: target, met: met))
        }
    }
    if !runCallgrind {
        notes.append("RPC instructions per call (2b): not counted, the run had `--no-callgrind`.")
    } else if let reason = await Callgrind.unavailable() {
        notes.append("RPC instructions per call (2b): not counted, \(reason).")
    } else {
        // Stage 3's evidence (issue 31): the CPU of the RPC path itself, which the round trip's wake-ups hide.
        let (small, large) = quick ? (1_000, 2_000) : (2_000, 4_000)
        let modes = [
            ("profile-rpc", "in process (`profile-rpc`: request encode, `RPCMethods.handle`, reply decode; no socket)"),
            ("profile-rpc-loop", "over tcp on service loops (`profile-rpc-loop`: both sides, every thread, libzmq's I/O threads included)"),
            ("profile-rpc-threads", "over tcp in today's layout (`profile-rpc-threads`: no loops, every thread)"),
        ]
        for (mode, description) in modes {
            do {
                let perCall = try await Callgrind.perMessage([mode], small: small, large: large)
                say("callgrind \(mode): \(fmt(perCall)) instructions per call (margin between \(small) and \(large) calls)")
                rows.append(Row(benchmark: "2b. RPC `convert` \(description), instructions per call (callgrind)",
                                tickwire: fmt(perCall), peer: "-", ratio: "-", target: "-", met: "-"))
            } catch {
                say("callgrind \(mode): \(error)")
            }
        }
    }
}

// 3. Conversion
var transactions: ConversionBench.Transactions?
if only.contains("convert") || only.contains("format") {
    transactions = ConversionBench.transactions(count: conversionCount)
}
if only.contains("convert"), let transactions {
    say("== 3. conversion: total of \(conversionCount) transactions in 7 currencies -> EUR, half-even to cents (best of 3)")
    let graph = try ConversionBench.graph()
    var best = Duration.seconds(1_000_000)
    var total = ExactDecimal.zero
    for _ in 0..<3 {
        let start = ContinuousClock.now
        total = try ConversionBench.total(transactions, graph: graph)
        best = min(best, ContinuousClock.now - start)
    }
    let perSecond = Double(conversionCount) / best.seconds
    say("tickwire Money: \(fmt(best.seconds * 1000, 1)) ms, \(fmt(perSecond)) tx/s, total \(total) EUR")
    var peerText = "n/a", ratioText = "n/a", met = "?"
    if runPeers, let py = await peers.run("conversion.py", ["--count", "\(conversionCount)"]), let seconds = py.number("seconds") {
        let pyTotal = py["total"] as? String ?? "?"
        say("python decimal: \(fmt(seconds * 1000, 1)) ms, total \(pyTotal) EUR")
        let identical = pyTotal == total.description
        if !identical {
            say("!!! CONVERSION MISMATCH: Swift \(total) != Python \(pyTotal)")
            failures.append("Swift and Python conversion totals differ")
        } else {
            say("totals identical to the last digit: \(total)")
        }
        let r = seconds / best.seconds
        peerText = "\(fmt(seconds * 1000, 1)) ms (decimal)"
        ratioText = ratio(r)
        met = (r >= 10 && identical) ? "yes" : "NO"
        notes.append("Conversion totals: Swift `\(total)`, Python `\(pyTotal)`: \(identical ? "identical" : "**MISMATCH**").")
    }
    rows.append(Row(benchmark: "3. total of 1M tx, 7 currencies, half-even", tickwire: "\(fmt(best.seconds * 1000, 1)) ms",
                    peer: peerText, ratio: ratioText, target: ">= 10x, identical", met: met))
}

// 4. Formatting
if only.contains("format"), let transactions {
    say("== 4. formatting: \(formatCount) amounts with MoneyFormatter.currency (de_AT/EUR, en_US/USD, sv_SE/SEK)")
    _ = ConversionBench.format(transactions, count: 300)  // warm the style cache
    let start = ContinuousClock.now
    let (_, firsts) = ConversionBench.format(transactions, count: formatCount)
    let elapsed = ContinuousClock.now - start
    say("tickwire MoneyFormatter: \(fmt(elapsed.seconds * 1000, 1)) ms (\(fmt(Double(formatCount) / elapsed.seconds)) /s), e.g. \(firsts)")
    var peerText = "n/a (babel not installed)", ratioText = "n/a"
    if runPeers, let py = await peers.run("formatting.py", ["--count", "\(formatCount)"]) {
        if let seconds = py.number("seconds") {
            say("python babel: \(fmt(seconds * 1000, 1)) ms, e.g. \(py["firsts"] ?? "")")
            peerText = "\(fmt(seconds * 1000, 1)) ms (babel)"
            ratioText = ratio(seconds / elapsed.seconds)
            notes.append("Formatting samples: Swift \(firsts.map { "`\($0)`" }.joined(separator: ", ")); babel \(((py["firsts"] as? [String]) ?? []).map { "`\($0)`" }.joined(separator: ", ")).")
        } else {
            say("python peer skipped: \(py["skipped"] ?? "")")
        }
    }
    rows.append(Row(benchmark: "4. format 100k amounts (3 locales)", tickwire: "\(fmt(elapsed.seconds * 1000, 1)) ms",
                    peer: peerText, ratio: ratioText, target: "-", met: "-"))
}

// 5. The real services (partial pipeline): start-up to `health`, idle RSS, stream rates.
let servicesBin = option("--services-bin") ?? "Benchmarks/.build/release"
if only.contains("services") {
    say("== 5. services from \(servicesBin): start to `health`, idle RSS, stream rates (mock feeds, --period bitso=1)")
    let names = ["rates-fetcher", "converter", "portfolio", "presenter"]
    if !names.allSatisfy({ FileManager.default.isExecutableFile(atPath: "\(servicesBin)/\($0)") }) {
        say("skipped: build the services first (swift build -c release --product NAME in Benchmarks/)")
        notes.append("Services: skipped, no release executables in `\(servicesBin)`.")
    } else if let result = await peers.run("services.py", ["--bin-dir", URL(fileURLWithPath: servicesBin).standardizedFileURL.path, "--seconds", quick ? "5" : "10"]),
              let services = result["services"] as? [String: [String: Any]] {
        for name in names {
            let entry = services[name] ?? [:]
            let start = entry.number("start_ms"), rss = entry.number("rss_mb"), after = entry.number("rss_mb_after")
            say("\(name): healthy \(entry["healthy"] ?? "?") after \(start.map { fmt($0, 0) } ?? "-") ms, RSS \(rss.map { fmt($0, 1) } ?? "-") MB idle, \(after.map { fmt($0, 1) } ?? "-") MB after streaming")
            rows.append(Row(benchmark: "5. \(name): exec to `health` answer", tickwire: start.map { "\(fmt($0, 0)) ms" } ?? "no answer",
                            peer: "-", ratio: "-", target: "< 300 ms", met: start.map { $0 < 300 ? "yes" : "NO" } ?? "NO"))
            rows.append(Row(benchmark: "5. \(name): idle RSS", tickwire: rss.map { "\(fmt($0, 1)) MB" } ?? "-",
                            peer: "-", ratio: "-", target: "< 30 MB", met: rss.map { $0 < 30 ? "yes" : "NO" } ?? "?"))
        }
        for (kind, label) in [("quote", "rates-fetcher `quote.*`"), ("price", "converter `price.*`")] {
            if let stream = result[kind] as? [String: Any] {
                let perSecond = stream.number("per_second") ?? 0
                let p50 = stream.number("latency_ms_p50"), p99 = stream.number("latency_ms_p99")
                say("\(label): \(fmt(perSecond, 1)) updates/s, publish-to-receive p50 \(p50.map { fmt($0, 1) } ?? "-") ms, p99 \(p99.map { fmt($0, 1) } ?? "-") ms")
                rows.append(Row(benchmark: "5. \(label) updates reaching a subscriber (mock at its normal pace)", tickwire: "\(fmt(perSecond, 1)) /s, p50 \(p50.map { fmt($0, 1) } ?? "-") ms",
                                peer: "-", ratio: "-", target: "-", met: "-"))
            }
        }
        if let pipeline = result["pipeline"] as? [String: Any] {
            let received = pipeline.number("presenter_received_per_second") ?? 0
            let fetched = pipeline.number("fetcher_published_per_second") ?? 0
            let converted = pipeline.number("converter_published_per_second") ?? 0
            let p50 = pipeline.number("latency_ms_p50"), p99 = pipeline.number("latency_ms_p99")
            let rssStart = pipeline.number("presenter_rss_mb_start"), rssEnd = pipeline.number("presenter_rss_mb_end")
            say("pipeline (flat out): presenter received \(fmt(received, 0))/s; fetcher published \(fmt(fetched, 0))/s, converter \(fmt(converted, 0))/s; "
                + "quote-to-price p50 \(p50.map { fmt($0, 1) } ?? "-") ms, p99 \(p99.map { fmt($0, 1) } ?? "-") ms; "
                + "presenter RSS \(rssStart.map { fmt($0, 1) } ?? "-") -> \(rssEnd.map { fmt($0, 1) } ?? "-") MB; all alive: \(pipeline["all_alive"] ?? "?")")
            rows.append(Row(benchmark: "6. pipeline flat out: updates reaching the presenter (as fast as the mock fetcher makes quotes)", tickwire: "\(fmt(received, 0)) /s",
                            peer: "-", ratio: "-", target: "-", met: "-"))
            rows.append(Row(benchmark: "6. pipeline: fetcher `quote.*` / converter `price.*` published", tickwire: "\(fmt(fetched, 0)) /s / \(fmt(converted, 0)) /s",
                            peer: "-", ratio: "-", target: "-", met: "-"))
            rows.append(Row(benchmark: "6. pipeline: quote created -> `price.BTC.USD` received, p50 / p99", tickwire: "\(p50.map { fmt($0, 1) } ?? "-") ms / \(p99.map { fmt($0, 1) } ?? "-") ms",
                            peer: "-", ratio: "-", target: "-", met: "-"))
            rows.append(Row(benchmark: "6. pipeline: presenter RSS, start -> end of the run", tickwire: "\(rssStart.map { fmt($0, 1) } ?? "-") -> \(rssEnd.map { fmt($0, 1) } ?? "-") MB",
                            peer: "-", ratio: "-", target: "bounded", met: (rssEnd ?? 0) - (rssStart ?? 0) < 20 ? "yes" : "NO"))
        }
        for (key, label) in [("presenter_intake", "steady 100000 /s"), ("presenter_intake_flat_out", "flat out")] {
            guard let intake = result[key] as? [String: Any] else { continue }
            let published = intake.number("published_per_second") ?? 0, received = intake.number("received_per_second") ?? 0
            let applied = intake.number("applied_per_second") ?? 0, superseded = intake.number("superseded_per_second") ?? 0
            let gaps = intake.number("gaps") ?? -1
            let lag = ["lag_ms_p50_bucket", "lag_ms_p99_bucket"].map { intake.number($0) }
            let lagText = lag.map { $0.map { "<= \(fmt($0, 0)) ms" } ?? "-" }.joined(separator: " / ")
            let rss = ["presenter_rss_mb_start", "presenter_rss_mb_first_half_max", "presenter_rss_mb_end"].map { intake.number($0) }
            let rssText = rss.map { $0.map { fmt($0, 1) } ?? "-" }.joined(separator: " -> ")
            say("presenter intake, \(label): published \(fmt(published, 0))/s, received \(fmt(received, 0))/s, applied \(fmt(applied, 0))/s, "
                + "superseded \(fmt(superseded, 0))/s, gaps \(fmt(gaps, 0)), lag p50 / p99 \(lagText), RSS \(rssText) MB")
            let steady = key == "presenter_intake"
            let keptUp = received >= 100_000 * 0.995 && received >= published * 0.995 && gaps == 0
            rows.append(Row(benchmark: "6b. presenter intake, `price.*` \(label): received / published, re-synchronisations",
                            tickwire: "\(fmt(received, 0)) /s / \(fmt(published, 0)) /s, \(fmt(gaps, 0)) gaps",
                            peer: "-", ratio: "-", target: steady ? ">= 100000 /s, all received, no gap" : "-",
                            met: steady ? (keptUp ? "yes" : "NO") : "-"))
            rows.append(Row(benchmark: "6b. presenter, \(label): applied / superseded by a newer value of the topic",
                            tickwire: "\(fmt(applied, 0)) /s / \(fmt(superseded, 0)) /s", peer: "-", ratio: "-", target: "-", met: "-"))
            rows.append(Row(benchmark: "6b. presenter, \(label): publish -> applied lag, p50 / p99 (histogram bucket)", tickwire: lagText,
                            peer: "-", ratio: "-", target: steady ? "p99 < 100 ms" : "-",
                            met: steady ? ((lag[1] ?? .infinity) < 100 ? "yes" : "NO") : "-"))
            if steady {
                let (start, half, end) = (rss[0] ?? 0, rss[1] ?? 0, rss[2] ?? 0)
                rows.append(Row(benchmark: "6b. presenter RSS: start -> max of the first half -> end", tickwire: "\(rssText) MB",
                                peer: "-", ratio: "-", target: "bounded", met: end - max(start, half) < 10 ? "yes" : "NO"))
            }
        }
    }
}

// 7. A quote's way to a price and to the dashboard (issue 22): bench/repricing.py times both ends in one process.
let flatSeconds = quick ? 10 : 60
if only.contains("repricing") {
    say("== 7. quote -> price (converter, event-driven) and -> SSE (presenter), from \(servicesBin); flat out for \(flatSeconds) s")
    let names = ["rates-fetcher", "converter", "presenter"]
    if !names.allSatisfy({ FileManager.default.isExecutableFile(atPath: "\(servicesBin)/\($0)") }) {
        say("skipped: build the services first (swift build -c release --product NAME in Benchmarks/)")
        notes.append("Repricing: skipped, no release executables in `\(servicesBin)`.")
    } else {
        let binDirectory = URL(fileURLWithPath: servicesBin).standardizedFileURL.path
        let seconds = quick ? "5" : "10", idleSeconds = quick ? "6" : "20"
        // Once: the real fetcher at its normal pace, flat out and to the dashboard. Then paired rounds at 20 and at 1,000
        // quotes/s, each round the converter and the Python pipeline back to back at each pace.
        let once = await peers.run("repricing.py", ["run", "--bin-dir", binDirectory, "--only", "normal,flat,sse",
                                                    "--seconds", seconds, "--flat-seconds", "\(flatSeconds)"])
        var rounds = PairedRounds()
        var counts: [String: Double] = [:]
        for round in 1...pairedRoundCount {
            guard let result = await peers.run("repricing.py", ["run", "--bin-dir", binDirectory, "--only", "idle,paced",
                                                                "--seconds", seconds, "--idle-seconds", idleSeconds]) else { continue }
            var line = "round \(round):"
            for (stage, run) in result.sorted(by: { $0.key < $1.key }) { reportFailures(of: run, in: "\(stage) (round \(round))") }
            for (stage, pace) in [("idle", "20"), ("paced", "1,000")] {
                let runs = result[stage] as? [String: [String: Any]]
                let swift = runs?["converter"], python = runs?["python"]
                for key in ["p50_ms", "p99_ms"] {
                    rounds.record("\(stage) converter \(key)", swift?.number(key))
                    rounds.record("\(stage) python \(key)", python?.number(key))
                    rounds.recordRatio("\(stage) converter / python \(key)", swift?.number(key), python?.number(key))
                }
                for (side, run) in [("converter", swift), ("python", python)] {
                    for key in ["followed", "quotes", "superseded", "sent_within_100us"] {
                        if let value = run?.number(key) { counts["\(stage) \(side) \(key)", default: 0] += value }
                    }
                }
                line += " \(pace) quotes/s: converter \(latencyText(swift)), python \(latencyText(python));"
            }
            say(line)
        }
        for (stage, run) in (once ?? [:]).sorted(by: { $0.key < $1.key }) { reportFailures(of: run, in: stage) }
        repricingRows(once ?? [:], rounds: rounds, counts: counts)
    }
}

/// Says and notes why a run of bench/repricing.py (or one side of it) failed: its `error`, if it has one.
@MainActor func reportFailures(of run: Any, in stage: String) {
    guard let run = run as? [String: Any] else { return }
    if let error = run["error"] {
        say("7. the \(stage) run failed: \(error)")
        notes.append("Repricing: the \(stage) run failed: \(error).")
    }
    for (side, value) in run where value is [String: Any] { reportFailures(of: value, in: "\(stage) \(side)") }
}

/// "p50 / p99" of a run of bench/repricing.py, in ms.
func latencyText(_ run: [String: Any]?) -> String {
    guard let run else { return "n/a" }
    return "\(run.number("p50_ms").map { fmt($0, 3) } ?? "-") ms / \(run.number("p99_ms").map { fmt($0, 3) } ?? "-") ms"
}

/// "followed / quotes" of a run, with the quotes the converter's subscriber skipped for a newer one when it says.
func followedText(_ run: [String: Any]?) -> String {
    guard let run else { return "n/a" }
    let superseded = run.number("superseded").map { ", \(fmt($0)) superseded by a newer quote before the converter read them" } ?? ""
    let close = run.number("sent_within_100us").map { "; \(fmt($0)) quotes left the stand-in within 100 us of the one before" } ?? ""
    return "\(fmt(run.number("followed") ?? 0)) of \(fmt(run.number("quotes") ?? 0))\(superseded)\(close)"
}

/// Whether every quote that changed BTC's price was followed by its price.
func allFollowed(_ run: [String: Any]?) -> Bool {
    guard let run, let quotes = run.number("quotes"), quotes > 0 else { return false }
    return run.number("followed") == quotes
}

@MainActor func repricingRows(_ result: [String: Any], rounds: PairedRounds, counts: [String: Double]) {
    let normal = result["normal"] as? [String: Any]
    let flat = result["flat"] as? [String: [String: Any]]
    let sse = result["sse"] as? [String: Any]
    func meets(_ run: [String: Any]?) -> String {
        guard let p50 = run?.number("p50_ms"), let p99 = run?.number("p99_ms") else { return "?" }
        return p50 < 0.5 && p99 < 2 ? "yes" : "NO"
    }
    say("7a. mock fetcher at its normal pace -> converter: quote -> price.BTC.USD \(latencyText(normal)), followed \(followedText(normal)) (feed \(normal?["feed"] ?? "-"), \(fmt(normal?.number("price_first") ?? 0)) prices before this process's copy of their quote, counted at 0)")
    rows.append(Row(benchmark: "7a. quote -> `price.BTC.USD` at a pyzmq subscriber, mock fetcher at its normal pace, p50 / p99",
                    tickwire: "\(latencyText(normal)) (\(fmt(normal?.number("followed") ?? 0)) samples)",
                    peer: "-", ratio: "-", target: "p50 < 0.5 ms, p99 < 2 ms", met: meets(normal)))
    rows.append(Row(benchmark: "7a. quotes that change BTC's price followed by their price (normal pace)", tickwire: followedText(normal),
                    peer: "-", ratio: "-", target: "all", met: allFollowed(normal) ? "yes" : "NO"))
    /// A stage's counts over the rounds, side by side as `followedText` reads them.
    func summed(_ stage: String, _ side: String) -> [String: Any]? {
        let keys = ["followed", "quotes", "superseded", "sent_within_100us"]
        guard counts["\(stage) \(side) quotes"] != nil else { return nil }
        return Dictionary(uniqueKeysWithValues: keys.compactMap { key in counts["\(stage) \(side) \(key)"].map { (key, NSNumber(value: $0) as Any) } })
    }
    for (stage, pace, label) in [("idle", "20", "20 quotes/s 50 ms apart (idle between quotes, as at the normal pace)"), ("paced", "1,000", "1,000 quotes/s")] {
        let number = stage == "idle" ? "7a" : "7b"
        let swift = summed(stage, "converter"), python = summed(stage, "python")
        say("\(number). \(pace) quotes/s, \(pairedRoundCount) paired rounds: converter p50 \(rounds.text("\(stage) converter p50_ms", 3, " ms")), "
            + "p99 \(rounds.text("\(stage) converter p99_ms", 3, " ms")); python pipeline p50 \(rounds.text("\(stage) python p50_ms", 3, " ms")), "
            + "p99 \(rounds.text("\(stage) python p99_ms", 3, " ms")); converter / python p50 \(rounds.text("\(stage) converter / python p50_ms", 2, "x")); "
            + "followed \(followedText(swift)); python followed \(followedText(python))")
        for (percentile, key) in [("p50", "p50_ms"), ("p99", "p99_ms")] {
            let mine = rounds.median("\(stage) converter \(key)"), toPython = rounds.median("\(stage) converter / python \(key)")
            let (target, met): (String, String) = switch (stage, percentile) {
            case ("idle", "p50"): ("< 0.5 ms", mine.map { $0 < 0.5 ? "yes" : "NO" } ?? "?")
            case (_, "p50"): ("<= 0.8x the Python pipeline's", toPython.map { $0 <= 0.8 ? "yes" : "NO" } ?? "?")
            default: ("< 2 ms", mine.map { $0 < 2 ? "yes" : "NO" } ?? "?")
            }
            rows.append(Row(benchmark: "\(number). quote -> `price.BTC.USD` at a pyzmq subscriber, \(label), \(percentile) (ratio: Tickwire's time over the Python pipeline's)",
                            tickwire: rounds.text("\(stage) converter \(key)", 3, " ms"),
                            peer: "\(rounds.text("\(stage) python \(key)", 3, " ms")) (pyzmq+decimal pipeline, same pace)",
                            ratio: rounds.text("\(stage) converter / python \(key)", 2, "x"), target: target, met: met))
        }
        rows.append(Row(benchmark: "\(number). quotes that change BTC's price followed by their price (\(pace) quotes/s, all rounds)", tickwire: followedText(swift),
                        peer: followedText(python), ratio: "-", target: "all", met: allFollowed(swift) ? "yes" : "NO"))
    }
    let flatSwift = flat?["converter"], flatPython = flat?["python"]
    func flatText(_ run: [String: Any]?) -> String {
        guard let run else { return "n/a" }
        return "\(fmt(run.number("prices_per_second") ?? 0)) prices/s for \(fmt(run.number("quotes_per_second") ?? 0)) quotes/s"
    }
    func backlogText(_ run: [String: Any]?) -> String {
        guard let run else { return "n/a" }
        return "\(run.number("btc_p50_first_tenth_ms").map { fmt($0, 2) } ?? "-") -> \(run.number("btc_p50_last_tenth_ms").map { fmt($0, 2) } ?? "-") ms"
    }
    let steady = flatSwift.map { run in
        guard let first = run.number("btc_p50_first_tenth_ms"), let last = run.number("btc_p50_last_tenth_ms") else { return false }
        return last < max(first * 2, first + 1)
    } ?? false
    say("7c. flat out: converter \(flatText(flatSwift)) (superseded \(fmt(flatSwift?.number("superseded_per_second") ?? 0))/s), BTC p50 \(backlogText(flatSwift)); python peer \(flatText(flatPython)), BTC p50 \(backlogText(flatPython))")
    rows.append(Row(benchmark: "7c. flat out, \(flatSeconds) s, 20 assets x 4 currencies: prices published vs quotes that change prices",
                    tickwire: flatText(flatSwift), peer: flatText(flatPython),
                    ratio: ratio(flatSwift?.number("prices_per_second").flatMap { m in flatPython?.number("prices_per_second").map { m / $0 } }),
                    target: "-", met: "-"))
    rows.append(Row(benchmark: "7c. flat out: quote -> `price.BTC.USD` p50, first -> last tenth of the run (backlog growth)",
                    tickwire: backlogText(flatSwift), peer: backlogText(flatPython), ratio: "-", target: "no growth", met: steady ? "yes" : "NO"))
    say("7d. quote -> SSE event at an HTTP client of the presenter: \(latencyText(sse)), followed \(followedText(sse))")
    rows.append(Row(benchmark: "7d. quote -> SSE event at an HTTP client of the presenter, 200 quotes/s, p50 / p99", tickwire: latencyText(sse),
                    peer: "-", ratio: "-", target: "p99 < 5 ms", met: sse?.number("p99_ms").map { $0 < 5 ? "yes" : "NO" } ?? "?"))
}

// 8. Gains and 9. import of the portfolio (issue 34): one generated file of activities, read by both sides.
let portfolioCount = 100_000
let portfolioRounds = quick ? 3 : 7
let importRounds = quick ? 2 : 5
if only.contains("gains") || only.contains("import") {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-portfolio-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = PortfolioBench.generate(count: portfolioCount)
    let csvPath = folder.appendingPathComponent("activities.csv").path
    let pricesPath = folder.appendingPathComponent("prices.json").path
    try files.csv.write(toFile: csvPath, atomically: true, encoding: .utf8)
    try JSONSerialization.data(withJSONObject: files.prices, options: [.sortedKeys]).write(to: URL(fileURLWithPath: pricesPath))
    let kinds = Dictionary(grouping: files.csv.split(separator: "\n").dropFirst(), by: { $0.split(separator: ",", omittingEmptySubsequences: false)[6] })
        .mapValues(\.count).sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    say("portfolio activities: \(portfolioCount) lines (\(kinds)), \(files.csv.utf8.count) bytes, seed \(PortfolioBench.seed), in \(csvPath)")

    if only.contains("gains") {
        say("== 8. gains over \(portfolioCount) activities of \(PortfolioBench.assets.count) assets in USD: Gains.compute vs Python decimal, \(portfolioRounds) paired rounds")
        let trades = try PortfolioBench.trades(files.csv)
        let prices = try PortfolioBench.storedPrices(files.prices)
        let methods: [CostBasisMethod] = [.fifo, .average]
        for method in methods { _ = try PortfolioBench.gains(trades, prices: prices, method: method) }  // warm-up
        var swift: [CostBasisMethod: [Double]] = [:], python: [CostBasisMethod: [Double]] = [:], ratios: [CostBasisMethod: [Double]] = [:]
        var digits: [CostBasisMethod: [String: [String: String]]] = [:]
        var mismatches: [CostBasisMethod: [String]] = [:]
        var peerRan = false
        for round in 1...portfolioRounds {
            var line = "round \(round):"
            var mine: [CostBasisMethod: Double] = [:]
            for method in methods {
                let (gains, elapsed) = try PortfolioBench.gains(trades, prices: prices, method: method)
                mine[method] = elapsed.seconds * 1000
                swift[method, default: []].append(elapsed.seconds * 1000)
                digits[method] = PortfolioBench.digits(gains)
                line += " tickwire \(method.rawValue) \(fmt(elapsed.seconds * 1000, 1)) ms;"
            }
            if runPeers, let py = await peers.run("portfolio_gains.py", ["--csv", csvPath, "--prices", pricesPath]) {
                peerRan = true
                for method in methods {
                    let run = py[method.rawValue] as? [String: Any]
                    guard let seconds = run?.number("seconds"), let figures = run?["figures"] as? [String: [String: String]] else { continue }
                    python[method, default: []].append(seconds * 1000)
                    ratios[method, default: []].append(seconds * 1000 / mine[method]!)
                    let ours = digits[method] ?? [:]
                    let differing = Set(ours.keys).union(figures.keys).sorted().flatMap { asset in
                        Set((ours[asset] ?? [:]).keys).union((figures[asset] ?? [:]).keys).sorted().compactMap { key in
                            ours[asset]?[key] == figures[asset]?[key] ? nil
                                : "\(asset).\(key): Swift \(ours[asset]?[key] ?? "none") != Python \(figures[asset]?[key] ?? "none")"
                        }
                    }
                    if !differing.isEmpty { mismatches[method] = differing }
                    line += " python \(method.rawValue) \(fmt(seconds * 1000, 1)) ms;"
                }
            }
            say(line)
        }
        for method in methods {
            let total = digits[method]?["total"] ?? [:]
            let label = method == .fifo ? "FIFO" : "average cost"
            say("\(label): tickwire \(Spread(values: swift[method] ?? []).text(1, " ms")), python \(Spread(values: python[method] ?? []).text(1, " ms")), "
                + "ratio \(Spread(values: ratios[method] ?? []).text(2, "x")); total realized \(total["realizedGain"] ?? "?"), unrealized \(total["unrealizedGain"] ?? "?") USD")
            var met = "?"
            if peerRan {
                if let differing = mismatches[method] {
                    say("!!! GAINS MISMATCH (\(label)): \(differing.count) figures differ, e.g. \(differing.prefix(3).joined(separator: "; "))")
                    failures.append("Swift and Python \(label) gains differ (\(differing.first!))")
                    met = "NO"
                    notes.append("Gains (\(label)): **MISMATCH**, \(differing.count) figures differ, e.g. \(differing.prefix(3).joined(separator: "; ")).")
                } else {
                    say("\(label): every figure of the \(PortfolioBench.assets.count) assets and the totals identical to the last digit")
                    met = "yes"
                    notes.append("Gains (\(label), USD): Swift and Python identical in every figure of the \(PortfolioBench.assets.count) assets and the totals: "
                        + "realized `\(total["realizedGain"] ?? "?")`, unrealized `\(total["unrealizedGain"] ?? "?")`, cost basis `\(total["costBasis"] ?? "?")`, "
                        + "fees `\(total["fees"] ?? "?")`.")
                }
            }
            rows.append(Row(benchmark: "8. gains of \(portfolioCount / 1000)k activities, \(PortfolioBench.assets.count) assets, \(label): realized + unrealized, per asset and total",
                            tickwire: Spread(values: swift[method] ?? []).text(1, " ms"),
                            peer: python[method].map { "\(Spread(values: $0).text(1, " ms")) (decimal)" } ?? "n/a",
                            ratio: ratios[method].map { Spread(values: $0).text(2, "x") } ?? "n/a",
                            target: "identical digits", met: met))
        }
    }

    if only.contains("import") {
        say("== 9. import of a \(portfolioCount)-line Ghostfolio CSV through `activities.import` (PortfolioState), dry run then commit on a new "
            + "database, vs Python (csv, decimal, sqlite3 / psycopg), \(importRounds) paired rounds")
        /// Lines per second of each round, ours and the peer's, and the peer's over ours.
        var swift: [String: [Double]] = [:], python: [String: [Double]] = [:], ratios: [String: [Double]] = [:]
        /// Keeps a round's figures into `store` (`dry`/`commit` keys after `prefix`), then runs the Python peer right after, paired,
        /// with `peerArguments` naming its database, and says the round.
        func pairedRound(_ round: Int, into store: String, prefix: String, dryRun: Double, commit: Double, peerArguments: [String]) async throws {
            swift[prefix + "dry", default: []].append(Double(portfolioCount) / dryRun)
            swift[prefix + "commit", default: []].append(Double(portfolioCount) / commit)
            var line = "round \(round): tickwire \(store) dry run \(fmt(dryRun * 1000, 0)) ms, commit \(fmt(commit * 1000, 0)) ms"
            if runPeers, let py = await peers.run("portfolio_import.py", ["--csv", csvPath, "--prices", pricesPath] + peerArguments),
               let drySeconds = py.number("dry_seconds"), let commitSeconds = py.number("commit_seconds") {
                guard py.number("new") == Double(portfolioCount), py.number("stored") == Double(portfolioCount) else {
                    throw BenchError("the Python import peer did not take every line into \(store): \(py)")
                }
                python[prefix + "dry", default: []].append(Double(portfolioCount) / drySeconds)
                python[prefix + "commit", default: []].append(Double(portfolioCount) / commitSeconds)
                ratios[prefix + "dry", default: []].append(drySeconds / dryRun)
                ratios[prefix + "commit", default: []].append(commitSeconds / commit)
                let client = py["psycopg"].map { " (psycopg \($0))" } ?? ""
                line += "; python\(client) dry run \(fmt(drySeconds * 1000, 0)) ms, commit \(fmt(commitSeconds * 1000, 0)) ms"
            }
            say(line)
        }
        for round in 1...importRounds {
            let path = folder.appendingPathComponent("portfolio-\(round).sqlite").path
            let state = try await PortfolioBench.state(try PortfolioStore.live(path: path), prices: files.prices)
            let dryRun = try await PortfolioBench.importOnce(state, csv: files.csv, dryRun: true, lines: portfolioCount)
            let written = try await PortfolioBench.importOnce(state, csv: files.csv, dryRun: false, lines: portfolioCount)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try await pairedRound(round, into: "SQLite", prefix: "", dryRun: dryRun.seconds, commit: written.seconds,
                                  peerArguments: ["--database", folder.appendingPathComponent("python-\(round).sqlite").path])
        }
        if let postgres = option("--postgres") {
            let url = try PostgresDatabaseURL(postgres)
            say("== 9. the same into PostgreSQL (\(url)), a new database each round, \(importRounds) rounds")
            for round in 1...importRounds {
                let (dryRun, written) = try await PortfolioPostgresBench.round(round, url: url, csv: files.csv, prices: files.prices, lines: portfolioCount)
                try await pairedRound(round, into: "PostgreSQL", prefix: "pg ", dryRun: dryRun.seconds, commit: written.seconds,
                                      peerArguments: ["--postgres", postgres])
            }
            let version = await shell("psql '\(postgres)' -Atc 'SHOW server_version' 2>/dev/null")
            notes.append("Import into PostgreSQL \(version.isEmpty ? "" : version + " ")on \(url.host):\(url.port) (`scripts/postgres-test.sh`, the same machine); "
                + "its Python peer writes with psycopg\(python["pg dry"] == nil ? " (not installed: no peer figures)" : "").")
        } else {
            notes.append("Import into PostgreSQL: skipped, no `--postgres URL` (`make bench` passes the server of `scripts/postgres-test.sh`).")
        }
        for (key, label) in [("dry", "dry run (preview of every line)"), ("commit", "commit (one write)")] {
            say("\(label): tickwire \(Spread(values: swift[key] ?? []).text(0, " lines/s")), python \(Spread(values: python[key] ?? []).text(0, " lines/s")), "
                + "ratio \(Spread(values: ratios[key] ?? []).text(2, "x"))")
            rows.append(Row(benchmark: "9. import of a \(portfolioCount / 1000)k-line Ghostfolio CSV, \(label), SQLite file",
                            tickwire: Spread(values: swift[key] ?? []).text(0, " lines/s"),
                            peer: python[key].map { "\(Spread(values: $0).text(0, " lines/s")) (csv+decimal+sqlite3)" } ?? "n/a",
                            ratio: ratios[key].map { Spread(values: $0).text(2, "x") } ?? "n/a", target: "-", met: "-"))
        }
        for (key, label) in [("pg dry", "dry run (preview of every line)"), ("pg commit", "commit (one write)")] {
            guard let values = swift[key] else { continue }
            say("\(label), PostgreSQL: tickwire \(Spread(values: values).text(0, " lines/s")), python \(Spread(values: python[key] ?? []).text(0, " lines/s")), "
                + "ratio \(Spread(values: ratios[key] ?? []).text(2, "x"))")
            rows.append(Row(benchmark: "9. import of a \(portfolioCount / 1000)k-line Ghostfolio CSV, \(label), PostgreSQL",
                            tickwire: Spread(values: values).text(0, " lines/s"),
                            peer: python[key].map { "\(Spread(values: $0).text(0, " lines/s")) (csv+decimal+psycopg)" } ?? "n/a",
                            ratio: ratios[key].map { Spread(values: $0).text(2, "x") } ?? "n/a", target: "-", met: "-"))
        }
    }
}

// 10. Feed plugins into one hub
if only.contains("ingest") {
    let perPlugin = quick ? 25_000 : 100_000
    let rounds = quick ? 2 : 5
    say("== 10. feed plugins: \(IngestBench.plugins) plugins x \(perPlugin) quotes flat out into one rates-fetcher from \(servicesBin), "
        + "against raw libzmq \(IngestBench.plugins) PUB -> 1 SUB of the same bytes, \(rounds) paired rounds")
    if !FileManager.default.isExecutableFile(atPath: "\(servicesBin)/rates-fetcher") {
        say("skipped: build rates-fetcher first (swift build -c release --product rates-fetcher in Benchmarks/)")
        notes.append("Ingest: skipped, no release rates-fetcher in `\(servicesBin)`.")
    } else {
        var hubRates: [Double] = [], rawRates: [Double] = [], shares: [Double] = [], lost = 0, gaps = 0, unchecked = 0
        for round in 1...rounds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-ingest-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let hub = try await IngestBench.hub(bin: servicesBin, perPlugin: perPlugin, folder: folder)
            let raw = try await IngestBench.raw(perPlugin: perPlugin, folder: folder)
            hubRates.append(hub.rate)
            rawRates.append(raw.rate)
            shares.append(hub.rate / raw.rate * 100)
            lost += hub.expected - hub.received
            // Lost before the hub's checks: neither accepted (its `feeds` counts heartbeats and statuses too) nor refused.
            unchecked += max(0, hub.expected - (hub.accepted + hub.refused.values.reduce(0, +)))
            gaps += hub.gaps
            say("round \(round): hub \(fmt(hub.rate)) quotes/s accepted and republished (\(hub.received) of \(hub.expected), \(hub.gaps) sequence gaps; "
                + "feeds: \(hub.accepted) accepted, refused \(hub.refused.isEmpty ? "none" : hub.refused.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))); "
                + "raw \(fmt(raw.rate)) msg/s (\(raw.received) received); hub / raw \(fmt(hub.rate / raw.rate * 100, 1)) %")
        }
        let median = Spread(values: hubRates).median
        say("hub \(Spread(values: hubRates).text(0, " /s")), raw \(Spread(values: rawRates).text(0, " /s")), hub / raw \(Spread(values: shares).text(1, " %")); "
            + "\(lost) lost, \(gaps) gaps (target >= 100000 /s in all, none lost)")
        let sent = rounds * IngestBench.plugins * perPlugin
        notes.append(lost == 0
            ? "Ingest: all \(sent) quotes sent were republished, \(gaps) sequence gaps."
            : "Ingest: \(lost) of \(sent) quotes sent were not republished, \(unchecked) of them neither accepted nor refused in the hub's `feeds`; "
                + "\(gaps) sequence gaps between the hub and the subscriber.")
        rows.append(Row(benchmark: "10. feed plugins: \(IngestBench.plugins) plugins publishing at once into one hub, quotes/s accepted and republished (counted by seq)",
                        tickwire: "\(Spread(values: hubRates).text(0, " /s")), \(lost) lost",
                        peer: "\(Spread(values: rawRates).text(0, " /s")) (raw libzmq \(IngestBench.plugins) PUB -> 1 SUB, same bytes)",
                        ratio: Spread(values: shares).text(1, " %"), target: ">= 100000 /s, none lost",
                        met: median >= 100_000 && lost == 0 && gaps == 0 ? "yes" : "NO"))
    }
}

// 11. Book maintenance (issue 32): one generated stream of level-2 diffs, read by both sides.
if only.contains("book") {
    let diffCount = quick ? 200_000 : 1_000_000
    let (topSkip, topCount) = (quick ? 50_000 : 100_000, quick ? 5_000 : 20_000)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-book-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let diffsPath = folder.appendingPathComponent("diffs.txt").path
    let text = BookBench.generate(count: diffCount)
    try text.write(toFile: diffsPath, atomically: true, encoding: .utf8)
    let diffs = try BookBench.parse(text)
    say("== 11. book maintenance: \(diffCount) level-2 diffs (seed 0x\(String(BookBench.seed, radix: 16)), \(text.utf8.count) bytes, in \(diffsPath)) into L2Book vs "
        + "cryptofeed's C order-book package from Python, \(pairedRoundCount) paired rounds")
    // Identical top 10 after every diff: both sides CRC32 each diff's top 10 as text, over the whole stream.
    let ours = try BookBench.digest(diffs)
    var verified: Bool?
    var peerVersion = "?"
    if runPeers, let peer = await peers.run("book_maintenance.py", ["verify", "--diffs", diffsPath]) {
        peerVersion = peer["version"] as? String ?? "?"
        let theirs = (peer["crc"] as? String ?? "", peer["checkpoints"] as? [String] ?? [])
        verified = theirs.0 == String(format: "%08x", ours.crc) && theirs.1 == ours.checkpoints
        let firstApart = ours.checkpoints.indices.first { $0 >= theirs.1.count || ours.checkpoints[$0] != theirs.1[$0] }.map { "before diff \(($0 + 1) * 100_000)" } ?? "in the last stretch"
        say(verified == true
            ? "top 10 after each of the \(diffCount) diffs identical (CRC32 \(String(format: "%08x", ours.crc)) on both sides)"
            : "!!! BOOK MISMATCH: Swift CRC32 \(String(format: "%08x", ours.crc)), Python \(theirs.0); first apart \(firstApart)")
        if verified == false { failures.append("Swift and Python top 10 levels differ (\(firstApart))") }
    }
    _ = try BookBench.apply(diffs)  // warm-up
    var rounds = PairedRounds()
    for round in 1...pairedRoundCount {
        let applied = try (0..<3).map { _ in try BookBench.apply(diffs).seconds }.min()!
        let topped = try (0..<3).map { _ in try BookBench.applyReadingTop(diffs, skip: topSkip, count: topCount) }.min { $0.elapsed < $1.elapsed }!
        let (mine, mineTop) = (Double(diffCount) / applied, Double(topCount) / topped.elapsed.seconds)
        rounds.record("apply", mine)
        rounds.record("top", mineTop)
        var line = "round \(round): L2Book \(fmt(mine)) updates/s, with the top 10 read after each \(fmt(mineTop)) updates/s (\(topped.levels) levels read)"
        if runPeers, let peer = await peers.run("book_maintenance.py", ["timed", "--diffs", diffsPath, "--skip", "\(topSkip)", "--count", "\(topCount)"]),
           let seconds = peer.number("apply_seconds"), let topSeconds = peer.number("top_seconds") {
            let (theirs, theirsTop) = (Double(diffCount) / seconds, Double(topCount) / topSeconds)
            rounds.record("peer apply", theirs)
            rounds.record("peer top", theirsTop)
            rounds.recordRatio("apply ratio", mine, theirs)
            rounds.recordRatio("top ratio", mineTop, theirsTop)
            line += "; order-book \(fmt(theirs)) updates/s, with the top 10 \(fmt(theirsTop)) updates/s (\(peer.number("top_levels").map { fmt($0) } ?? "?") levels read); "
                + "ratio \(fmt(mine / theirs, 2))x, \(fmt(mineTop / theirsTop, 1))x"
        }
        say(line)
    }
    let peerName = "order-book \(peerVersion) (C, from Python, Decimal keys)"
    for (label, key, benchmark) in [
        ("applied", "apply", "11. book maintenance: \(diffCount / 1000)k recorded L2 diffs (about 1,200 levels a side) applied to an exact book, updates/s"),
        ("top", "top", "11b. book maintenance with the top 10 read after each diff (\(topCount / 1000)k diffs from diff \(topSkip / 1000)k on), updates/s"),
    ] {
        let ratio = rounds.median("\(key) ratio")
        let met = ratio.map { $0 >= 5 && verified == true ? "yes" : "NO" } ?? "?"
        say("\(label): L2Book \(rounds.text(key, 0, " /s")), \(peerName) \(rounds.text("peer \(key)", 0, " /s")), ratio \(rounds.text("\(key) ratio", 2, "x")) (target >= 5x: \(met))")
        rows.append(Row(benchmark: benchmark, tickwire: rounds.text(key, 0, " /s"),
                        peer: rounds["peer \(key)"].map { "\($0.text(0, " /s")) (\(peerName))" } ?? "n/a",
                        ratio: rounds.text("\(key) ratio", 2, "x"), target: ">= 5x, identical top 10 after every diff", met: met))
    }
    notes.append(verified == nil ? "Book: no peer ran, the top 10 levels were not compared."
        : verified == true ? "Book: the top 10 levels of each side after each of the \(diffCount) diffs identical in Swift and Python (CRC32 `\(String(format: "%08x", ours.crc))` of their text, and every 100,000 diffs)."
        : "Book: **MISMATCH** of the top 10 levels between Swift and Python.")
}

// 13. Record and replay (`--only replay`: the replay row alone, without the recorder's 60 s flood)
if only.contains("capture") || only.contains("replay") {
    let floodRate = 100_000, floodSeconds = quick ? 10.0 : 60.0
    let replayCount = quick ? 50_000 : 200_000
    let rounds = quick ? 2 : 3
    say("== 13. record and replay: " + (only.contains("capture") ? "tickwire-recorder following \(floodRate) msg/s for \(Int(floodSeconds)) s; " : "")
        + "tickwire-replay --speed max of a "
        + "\(replayCount)-message capture into rates-fetcher, against raw libzmq PUB -> SUB of the same bytes, \(rounds) paired rounds")
    if !["rates-fetcher", "tickwire-recorder", "tickwire-replay"].allSatisfy({ FileManager.default.isExecutableFile(atPath: "\(servicesBin)/\($0)") }) {
        say("skipped: build rates-fetcher, tickwire-recorder and tickwire-replay first (swift build -c release --product NAME in Benchmarks/)")
        notes.append("Record and replay: skipped, no release rates-fetcher, tickwire-recorder or tickwire-replay in `\(servicesBin)`.")
    } else {
        if only.contains("capture") {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-recorder-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let flood = try await CaptureBench.recorder(bin: servicesBin, rate: floodRate, seconds: floodSeconds, folder: folder, peers: peers)
            try? FileManager.default.removeItem(at: folder)
            say("recorder: \(flood.sent) sent in \(fmt(flood.seconds, 1)) s (\(fmt(Double(flood.sent) / flood.seconds)) msg/s), \(flood.recorded) recorded, "
                + "\(flood.lost) lost, \(flood.gaps) seq gaps, CPU \(fmt(flood.cpuShare, 1)) % of a core, \(flood.fileBytes) compressed bytes")
            rows.append(Row(benchmark: "13. recorder following a flood of quote envelopes for \(Int(floodSeconds)) s (counted by seq in the capture, read with Python's gzip)",
                            tickwire: "\(fmt(Double(flood.sent) / flood.seconds)) msg/s, \(flood.lost) lost, \(flood.gaps) gaps, CPU \(fmt(flood.cpuShare, 1)) % of a core",
                            peer: "-", ratio: "\(fmt(Double(flood.fileBytes) / Double(max(flood.recorded, 1)), 1)) B/message on disk",
                            target: ">= 100000 msg/s for 60 s, none lost",
                            met: Double(flood.sent) / flood.seconds >= 99_000 && floodSeconds >= 60 && flood.lost == 0 && flood.gaps == 0 ? "yes" : "NO"))
        }
        var paired = PairedRounds(), lost = 0
        for round in 1...rounds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-replay-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let made = try await CaptureBench.recorder(bin: servicesBin, rate: floodRate, seconds: Double(replayCount) / Double(floodRate), folder: folder, peers: peers)
            let replay = try await CaptureBench.replay(bin: servicesBin, expected: made.recorded, folder: folder)
            let raw = try await CaptureBench.raw(count: made.recorded, folder: folder)
            lost += made.recorded - replay.received
            paired.record("replay", replay.rate)
            paired.record("raw", raw)
            paired.recordRatio("share", replay.rate * 100, raw)
            say("round \(round): replay \(fmt(replay.rate)) quotes/s republished (\(replay.received) of \(made.recorded)); raw \(fmt(raw)) msg/s; "
                + "replay / raw \(fmt(replay.rate / raw * 100, 1)) %")
        }
        rows.append(Row(benchmark: "13. replay at full speed (`tickwire-replay --speed max`, one connection) into rates-fetcher, quotes/s republished, vs raw libzmq PUB -> SUB of the same bytes",
                        tickwire: "\(paired.text("replay", 0, " /s")), \(lost) lost", peer: "\(paired.text("raw", 0, " /s")) (raw libzmq, 1 PUB -> 1 SUB, ipc)",
                        ratio: paired.text("share", 1, " %"), target: "-", met: lost == 0 ? "-" : "NO"))
    }
}

// 12. Candles
if only.contains("candles") {
    let tradeCount = quick ? 200_000 : 1_000_000
    say("== 12. candles: \(tradeCount) trades of 4 markets to 1m candles with CandleBuilder vs bench/candles.py (Python's decimal), "
        + "\(pairedRoundCount) paired rounds, every candle compared by digest")
    let trades = try CandleBench.trades(count: tradeCount)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-trades-\(UUID().uuidString.prefix(8)).csv").path
    try CandleBench.write(trades, to: file)
    defer { try? FileManager.default.removeItem(atPath: file) }
    var rounds = PairedRounds()
    var digests: Set<String> = [], pythonDigests: Set<String> = [], candleCount = 0
    for round in 1...pairedRoundCount {
        // The fastest of 3 runs on each side, as the peer's `--repeat 3`.
        var best = Duration.seconds(1_000_000)
        for _ in 0..<3 {
            let (candles, elapsed) = CandleBench.build(trades)
            best = min(best, elapsed)
            digests.insert(CandleBench.digest(candles))
            candleCount = candles.count
        }
        let swiftRate = Double(tradeCount) / best.seconds
        rounds.record("swift", swiftRate)
        var pythonText = "n/a"
        if runPeers, let py = await peers.run("candles.py", ["--trades", file, "--repeat", "3"]), let seconds = py.number("seconds") {
            pythonDigests.insert(py["digest"] as? String ?? "?")
            rounds.record("python", Double(tradeCount) / seconds)
            rounds.recordRatio("ratio", seconds, best.seconds)
            pythonText = "\(fmt(Double(tradeCount) / seconds)) trades/s (\(fmt(seconds * 1000, 1)) ms, \(py["candles"] ?? "?") candles)"
        }
        say("round \(round): CandleBuilder \(fmt(swiftRate)) trades/s (\(fmt(best.seconds * 1000, 1)) ms, \(candleCount) candles); python \(pythonText)")
    }
    let identical = digests.count == 1 && (pythonDigests.isEmpty || pythonDigests == digests)
    say("digest of every candle: Swift \(digests.sorted().joined(separator: ",")), Python \(pythonDigests.sorted().joined(separator: ",")): "
        + (identical ? "identical" : "MISMATCH") + "; CandleBuilder / python \(rounds.text("ratio", 2, "x"))")
    if !identical { failures.append("Swift and Python candles differ") }
    notes.append("Candles: \(candleCount) 1m candles of \(tradeCount) trades, FNV-1a 64 digest Swift `\(digests.sorted().joined(separator: ","))`, "
        + "Python `\(pythonDigests.sorted().joined(separator: ","))`: \(identical ? "identical" : "**MISMATCH**").")
    rows.append(Row(benchmark: "12. \(tradeCount) trades to 1m candles (CandleBuilder) vs plain Python decimal, identical OHLCV",
                    tickwire: rounds.text("swift", 0, " trades/s"), peer: rounds.text("python", 0, " trades/s"), ratio: rounds.text("ratio", 2, "x"),
                    target: "identical", met: runPeers ? (identical ? "yes" : "NO") : "?"))
}

// Table and RESULTS.md
@MainActor func table(_ lines: [String]? = nil) -> String {
    (["| benchmark | Tickwire (Swift) | peer | ratio | target | met |", "|---|---|---|---|---|---|"]
        + (lines ?? rows.map { "| \($0.benchmark) | \($0.tickwire) | \($0.peer) | \($0.ratio) | \($0.target) | \($0.met) |" }))
        .joined(separator: "\n")
}

/// The rows and notes each `--only` name writes, by how they begin.
let sections: [String: (rows: [String], notes: [String])] = [
    "bus": (["1. ", "1a. ", "1b. ", "1c. ", "1d. "], ["Bus"]), "latency": (["2. publish"], []), "rpc": (["2. RPC"], ["RPC:"]),
    "convert": (["3. "], ["Conversion totals"]), "format": (["4. "], ["Formatting samples"]),
    "services": (["5. ", "6. ", "6b. "], ["Services:"]), "repricing": (["7a. ", "7b. ", "7c. ", "7d. "], ["Repricing:"]),
    "gains": (["8. "], ["Gains"]), "import": (["9. "], ["Import"]), "ingest": (["10. "], ["Ingest"]), "book": (["11. ", "11b. "], ["Book"]),
    "capture": (["13. "], ["Record and replay"]), "replay": (["13. replay"], []),
]

/// With `--only`, the results file's rows and notes of the benchmarks this run left out, to keep beside this run's.
func carriedOver() -> (rows: [String], notes: [String]) {
    guard option("--only") != nil, let old = try? String(contentsOfFile: resultsPath, encoding: .utf8) else { return ([], []) }
    let ran = only.compactMap { sections[$0] }
    let lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let oldRows = lines.filter { $0.hasPrefix("| ") && !$0.hasPrefix("| benchmark |") }
        .filter { line in !ran.contains { $0.rows.contains { line.hasPrefix("| " + $0) } } }
    let end = lines.firstIndex { $0.hasPrefix("How each figure is taken") } ?? lines.count
    let tableEnd = (lines.lastIndex { $0.hasPrefix("| ") } ?? end)
    let oldNotes = lines[min(tableEnd + 1, end)..<end].filter { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
        .filter { note in !ran.contains { $0.notes.contains { note.hasPrefix($0) } } }
    return (oldRows, oldNotes)
}

/// Rows in benchmark order (1, 1a, ..., 9), each group in the order it came.
func ordered(_ lines: [String]) -> [String] {
    func key(_ line: String) -> (Int, String) {
        let label = line.dropFirst(2).prefix { $0 != " " }
        return (Int(label.prefix { $0.isNumber }) ?? 99, String(label.drop { $0.isNumber }))
    }
    return lines.enumerated().sorted { (key($0.element).0, key($0.element).1, $0.offset) < (key($1.element).0, key($1.element).1, $1.offset) }.map(\.element)
}

print("")
print(table())
let cpu = await shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-")
let (cores, memory, kernel) = (await shell("nproc"), await shell("free -g | awk '/Mem:/{print $2}'"), await shell("uname -sr"))
let swiftVersion = await shell("swift --version 2>&1 | head -1")
let pyzmqVersion = await shell("\(peers.python) -c 'import zmq; print(zmq.__version__, \"/ libzmq\", zmq.zmq_version())'")
let orjsonVersion = await shell("\(peers.python) -c 'import orjson; print(orjson.__version__)'")
let pythonVersion = await shell("\(peers.python) --version")
let loadAtEnd = loadAverage()
let machine = """
    - machine: \(cores) cores, \(cpu), \(memory) GiB, \(kernel)
    - Swift: \(swiftVersion)
    - libzmq: \(ZMQContext.libraryVersion) (Swift, linked); pyzmq \(pyzmqVersion), orjson \(orjsonVersion), \(pythonVersion)
    - load average (1/5/15 min) at the start: \(loadAtStart), at the end: \(loadAtEnd) (above 2 means other work shared the 2 cores; the figures are then noisier)
    """
let carried = carriedOver()
let runRows = rows.map { "| \($0.benchmark) | \($0.tickwire) | \($0.peer) | \($0.ratio) | \($0.target) | \($0.met) |" }
let runNames = option("--only").map { " (`--only \($0)`: the machine and load lines are this run's, the other rows and notes are kept from the run before)" } ?? ""
let markdown = """
    # Benchmark results

    Latest run of `\(command)`\(runNames) on \(ISO8601DateFormatter().string(from: Date())) (release build).

    \(machine)

    \(table(ordered(carried.rows + runRows)))

    \((carried.notes + notes).map { "- \($0)" }.joined(separator: "\n"))

    How each figure is taken (see `Benchmarks/Sources/tickwire-bench/` and `bench/*.py`):

    1. Throughput: \(busCount) messages, one publisher, one subscriber, tcp loopback, HWM 0 (lossless);
       messages / (first publish ... last decode). Paired rounds (\(pairedRoundCount)): each round runs the Subscriber,
       the Subscriber on a ServiceLoop, the codec-only Bus, the Bus's sockets, raw libzmq and both Python peers back to back; a figure is the median of
       the rounds with the lowest and highest in brackets, a ratio the median of the rounds' own ratios. Tickwire
       through the real `Subscriber` (the judged row): `Publisher.publish` (Wire.encode, seq, retain, send on the
       caller's thread through a PUB `LockedSocket`) -> the `Subscriber`'s SUB `OwnedSocket`, its sequence tracking and
       event queue -> a consumer task that decodes each `.message` (`decode(Quote.self)`), after it synchronised from
       the publisher's snapshot; receive buffer and backlog above the run's messages, so it holds rather than
       conflates. On a ServiceLoop (informative; issue 31 stage 2): the same, the `Subscriber` made with `loop:` (the
       loop's thread reads its socket and runs its tasks) and the consumer task preferring that loop. Codec only: the same publisher -> a bare SUB `OwnedSocket` -> `BusMessage(frames:)` +
       `decode(Quote.self)`. Publisher and subscriber in one process on their own threads. Python: publisher and
       subscriber processes, orjson + Decimal + datetime (typed dataclasses). Raw: the same bytes prebuilt, no
       encoding; the limit is the fastest run without JSON in the same round (Swift Socket, the Bus's sockets or
       pyzmq raw). CPU per message (1c): the process's user + system time over the run (every thread, libzmq's I/O
       threads included) divided by the messages. Instructions (1d, where valgrind is installed): `valgrind
       --tool=callgrind tickwire-bench profile-throughput MODE N` (every thread) and `profile-bus N` (the codec alone:
       encode, topic check, decode, no sockets), the margin between two N, so start-up cancels out; `profile-direct N`
       is the direct wire API alone (an `Envelope<Quote>` written into one reused `WireBuffer`, the topic frame compared
       as bytes, the envelope read back by `decodeDirect`'s fast path; the run fails if any message falls back to the
       tape). The codec target is judged on `profile-bus`, the product's path.
    2. Latency: 10,000 msg/s paced by absolute-deadline sleeps (timer slack 1 us) on one topic, first second
       dropped; time taken just before publish, read just after the typed decode. RPC: sequential `convert`
       calls through `RPCClient` (REQ) -> `RPCServer` (ROUTER) of the contract's `ConverterAPI.convert` (`ConvertRequest` and
       `ConvertResult`, coded directly, as a service calls the converter), the rate derived per call along the shortest
       path as the peer does (its reply also carries the rate, path and source); 500 warm-up calls; in two
       layouts. On service loops (the judged rows, issue 31 stage 2): the server made with `loop:` (a `ServiceLoop`
       standing for the converter's) and the client with a second `ServiceLoop` (the calling service's), the calls made
       from a task preferring the client's loop (`withTaskExecutorPreference`). Today's layout (informative): no loops,
       each socket read by a thread of its own, the requests and the caller on the global pool. Its peer
       (`bench/rpc_latency.py`): a pyzmq REQ client and a ROUTER server process, orjson + decimal. Its floor: raw libzmq
       REQ <-> REP in Swift laid out as the peer (`tickwire-bench rpc-floor-server`, a process of its own, answers the
       prebuilt reply bytes; the client's blocking calls on a thread), no JSON. Paired rounds (\(pairedRoundCount)): each round
       runs Tickwire in both layouts, the peer and the floor back to back; a figure is the median of the rounds with the lowest and
       highest in brackets, a ratio the median of the rounds' Tickwire time over the peer's (or the floor's). The target
       (p50 and p99): at most 0.5x pyzmq's, or, where the floor of the same rounds is above half of pyzmq's, at most
       1.3x the floor; the row says which. Instructions per call (2b, where valgrind is installed): `profile-rpc N`,
       N `convert` round trips in process through `LocalRPC` (the request encoded as `RPCClient` encodes it,
       `RPCMethods.handle`, the reply decoded as `RPCClient` decodes it; no socket), and `profile-rpc-loop N` /
       `profile-rpc-threads N`, the timed rows' round trips over tcp in one process (every thread, libzmq's I/O threads
       included; user space only, so the kernel's share of a thread wake-up or a system call is not in it), the margin
       between two N.
    3. Conversion: splitmix64-seeded transactions (the same in both languages), rate per currency derived once,
       then per transaction convert with half-even to 2 places and sum; best of 3, generation not timed.
    4. Formatting: `MoneyFormatter.currency` (ICU) vs babel `format_currency` (CLDR), 100,000 amounts.

    5. Services (`bench/services.py`): each real executable started on free loopback ports, time from exec to its
       first `health` answer, VmRSS after 3 s of idling, then 10 s of the fetcher's and the converter's streams.
    6. Pipeline: rates-fetcher `--period bitso=0` (the mock Bitso feed polls flat out) -> converter -> presenter,
       each its own process; messages/s the presenter received (its own `tickwire_bus_received_total`), the
       fetcher's and converter's published rates, quote-creation-to-price latency on one topic, presenter RSS.
       6b. Presenter intake: `tickwire-bench flood-prices` stands in for the converter (its PUB, its `snapshot`)
       and publishes `price.*` on 100 topics to a real presenter, at a steady 100,000/s and then flat out, for the
       same seconds. From the presenter's own metrics: received (`tickwire_bus_received_total`, taken off the wire),
       gaps (each one a re-synchronisation), applied (`tickwire_presenter_applied_total`, decoded and stored),
       superseded (`tickwire_bus_superseded_total`: skipped because a newer value of the topic came before the
       presenter got to it; it conflates), and the lag from an update's `time` to its application
       (`tickwire_bus_delivery_lag_seconds`, read as the bucket holding p50 and p99). Its RSS is sampled every
       half second.
    7. Quote to price (`bench/repricing.py`): one Python process hears the quote of BTC-USD on the fetcher's PUB (as the
       converter does) and the `price.BTC.USD` carrying that quote's price on the converter's PUB (or the presenter's
       SSE event of BTC, on an HTTP connection to `/events`), and times the two arrivals with one clock. 7a: the real
       rates-fetcher with mock feeds, for three times the seconds (it quotes BTC-USD about once a second, so its p99 is
       nearly its slowest sample), and for a p99 from enough samples the stand-in at 20 BTC-USD quotes/s (50 ms apart:
       the pipeline idles between quotes as at the mock's pace, \(quick ? 6 : 20) s a side a round); 7b-7d: a stand-in fetcher
       (`repricing.py fetcher`, Clone pattern: sequence numbers, heartbeats, `snapshot`) publishing BTC-USD quotes at
       1,000/s (7b, \(quick ? 5 : 10) s a side a round), 200/s (7d), or quotes of 20 assets flat out (7c: every `price.*`
       counted, BTC timed in the first and the last tenth). The peer is the same pipeline in Python (`repricing.py peer`:
       pyzmq SUB, snapshot, `fractions` + `decimal` half-even, pyzmq PUB), at the same pace. 20 and 1,000 quotes/s in paired
       rounds (\(pairedRoundCount)): each round runs the converter and then the Python pipeline at 20 quotes/s, then both at
       1,000; a figure is the median of the rounds' percentiles with the lowest and highest in brackets, a ratio the median
       of the rounds' converter time over the Python pipeline's; the followed counts add up every round.
    8. Gains (`bench/portfolio_gains.py`): \(portfolioCount) activities of \(PortfolioBench.assets.count) assets in USD (buys, sells never of more
       than is held, fees on buys and sells and of their own, transfers in and out; quantities with 0-8 decimals, prices 2-6,
       fees 0-4), made by splitmix64 (seed \(PortfolioBench.seed), `PortfolioBench.generate`) and written as one Ghostfolio CSV and
       a JSON of each asset's price, which both sides read. Swift reads the CSV with the import's own reader into trades and times
       `Gains.compute` (grouping, time order, lots, every figure) by FIFO and by average cost; the peer parses untimed and times the
       same rules in `decimal`. Every figure (quantity, cost basis, value, realized, unrealized, fees of each asset, and the totals)
       is compared as text: a difference fails the row and the run. Paired rounds (\(portfolioRounds), \(quick ? "quick" : "full") run):
       each round runs Swift and then its peer; a figure is the median of the rounds with the lowest and highest in brackets, the
       ratio the median of the rounds' peer time over Swift's.
    9. Import: the same CSV through `PortfolioState.importActivities` (the `activities.import` method without its socket) on a
       new database: a dry run (read every line, its identity, the stored requests looked up, the ledger checked, a preview of
       every line), then the commit of the same file (the same again, then one write of the \(portfolioCount) trades with their
       requests and audit revisions, and the ledger checked as stored); lines/s = lines / the call's time. SQLite: a file in WAL
       mode, synchronous FULL; PostgreSQL (`--postgres URL`, which `make bench` starts with `scripts/postgres-test.sh`): a new
       database on that server each round, the store of `--database postgres://...` (the peer's: psycopg, a new database too, the
       write under an advisory lock as the store's). The peer (`bench/portfolio_import.py`) does the same steps with csv, decimal, hashlib and sqlite3 on a
       file of its own. Paired rounds (\(importRounds)) as in 8.
    10. Feed plugins (`IngestBench`): a real rates-fetcher (release, mock feeds polled once an hour, `--ingest-rate` out of the
       way) takes four `FeedConnection`s (TickwireFeeds; a ZeroMQ context and a sending thread each, send HWM 0) that publish
       their quotes (16 markets each, every quote a new price) flat out into its ingest endpoint over ipc; a SUB of its stream
       counts every `quote.bench*` it republished and checks each topic's sequence (the hub's own numbers: a gap is a lost
       message). quotes/s = quotes received / (first publish ... last receive). Raw: the same envelope bytes, prebuilt, from
       four raw PUB sockets (a context and a thread each, blocking sends, HWM 0) to one SUB over ipc, in the same round right
       after. Paired rounds (5, 2 with `--quick`): a figure is the median with the lowest and highest in brackets, the ratio
       the median of the rounds' hub / raw.
    11. Book maintenance (`BookBench`, `bench/book_maintenance.py`): \(quick ? "200,000" : "1,000,000") level-2 diffs of BTC-MXN generated by
       splitmix64 (seed 0x\(String(BookBench.seed, radix: 16))): a mid price near 1,200,000.00 walks by 0.10 ticks, most diffs within 20 ticks of it, a
       few up to 1,500; a level the mid walks over is removed, sizes have 8 decimals, size 0 removes a level; about 1,200 levels a
       side. Written to a file both sides read and parse untimed. Swift applies each diff to `OrderBook.L2Book`
       (`apply(side:price:size:)`: validation, exact integer key, sorted arrays); the peer to cryptofeed's C `order-book`
       package's `OrderBook` with `Decimal` prices and sizes (`book.bids[price] = size`, `del book.bids[price]`), as cryptofeed
       does, each run on Decimals parsed afresh (a Decimal caches its hash: over the objects of an earlier run the peer would
       skip hashing its keys, which a live stream's new prices never do). 11: every diff into a new book; 11b: the diffs from \(quick ? "50,000" : "100,000") on (the earlier ones applied untimed),
       \(quick ? "5,000" : "20,000") of them, each followed by a read of the top 10 levels of each side (`top(10)`; the peer's
       `SortedDict.index(i)`, whose first read after a write sorts every key). Each side's figure in a round is the fastest
       of 3 runs; paired rounds (\(pairedRoundCount)) as in 1, the ratio the median of the rounds' Swift / peer. Before the rounds
       both sides apply the whole stream once more and CRC32 the text of the top 10 after every diff (`b price size ...|a
       price size ...`, one line a diff), compared at the end and every 100,000 diffs: a difference fails the run.
    12. Candles (`CandleBench`, `bench/candles.py`): \(quick ? "200,000" : "1,000,000") trades of four markets generated by splitmix64 (seed
       20261126): prices walking in cents, sizes of 1 to 10^8 satoshi (8 decimals), 0 to 199 ms apart (about 28 hours), written to a
       CSV file both sides read and parse untimed. Swift adds each trade to `Candles.CandleBuilder` (1m only; a trade of a later
       minute closes its market's candle, a final tick the last ones); the peer groups the same trades by market and UTC minute with
       `decimal.Decimal` (open, high, low, close, exact volume sum, count) in plain Python. Each side's figure in a round is the
       fastest of 3 runs; paired rounds (\(pairedRoundCount)) as in 1, the ratio the median of the rounds' Python time / Swift time.
       Every candle of both sides is compared through an FNV-1a 64 digest of `market,start,open,high,low,close,volume,count` lines
       sorted by market and start: a difference fails the run.
    """
/// The numbered items of "How each figure is taken" in `text`, each to the next item, and what comes before them.
func descriptions(_ text: String) -> (head: String, items: [(number: Int, text: String)]) {
    guard let range = text.range(of: "How each figure is taken") else { return (text, []) }
    let lines = text[range.lowerBound...].split(separator: "\n", omittingEmptySubsequences: false)
    var items: [(number: Int, text: String)] = []
    var head = String(text[..<range.lowerBound]) + lines[0]
    for line in lines.dropFirst() {
        if let number = Int(line.prefix { $0.isNumber }), line.dropFirst(String(number).count).hasPrefix(". ") {
            items.append((number, String(line)))
        } else if items.isEmpty {
            head += "\n" + line
        } else {
            items[items.count - 1].text += "\n" + line
        }
    }
    return (head, items)
}

/// `markdown` with the descriptions of the benchmarks this run left out (`--only`) as the results file had them.
func keepingDescriptions(_ markdown: String) -> String {
    guard option("--only") != nil, let old = try? String(contentsOfFile: resultsPath, encoding: .utf8) else { return markdown }
    let names = [1: ["bus"], 2: ["latency", "rpc"], 3: ["convert"], 4: ["format"], 5: ["services"], 6: ["services"], 7: ["repricing"],
                 8: ["gains"], 9: ["import"], 10: ["ingest"], 11: ["book"], 12: ["candles"]]
    let before = Dictionary(descriptions(old).items.map { ($0.number, $0.text) }, uniquingKeysWith: { first, _ in first })
    let (head, items) = descriptions(markdown)
    return ([head] + items.map { item in
        (names[item.number] ?? []).contains(where: only.contains) ? item.text : before[item.number] ?? item.text
    }).joined(separator: "\n")
}

do {
    try keepingDescriptions(markdown).write(toFile: resultsPath, atomically: true, encoding: .utf8)
    print("\nwrote \(resultsPath)")
} catch {
    print("could not write \(resultsPath): \(error)")
}
if !failures.isEmpty {
    print("FAILED: \(failures.joined(separator: "; "))")
    exit(1)
}
