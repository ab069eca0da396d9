import ArgumentParser
import Capture
import Foundation
import ReplayCore
import ServiceSupport
import TickwireFeeds

/// `tickwire-replay`: the `replay` feed plugin. Plays a capture (tickwire-recorder's files) into a hub's ingest
/// endpoint under the feeds' own names, on one connection in capture order.
@main
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-replay",
        abstract: "Plays a capture's feed messages (quote, rate, limits, book, trade, coin) into a hub's ingest endpoint.",
        discussion: "e.g. tickwire-replay captures/demo.ndjson.gz --speed max (into rates-fetcher --feeds none, whose feeds' names are then free)",
        version: buildVersion)

    @Argument(help: "capture files, or directories of them (their .ndjson.gz files by name), played in order")
    var captures: [String]
    @Option(help: "the hub's ingest endpoint to connect to (env TICKWIRE_RATES_FETCHER_INGEST; default tcp://127.0.0.1:7103)")
    var ingest: String?
    @Option(help: "1 plays at the capture's pace, N at N times it, max as fast as the hub takes it (default 1)")
    var speed: String = "1"
    @Flag(help: "move the messages' times so the capture's first one is now (a dashboard's 1D chart shows its candles)")
    var retime = false
    @Flag(help: "keep the connection (and the feeds live) after the end until SIGTERM, instead of exiting 2 s after it")
    var hold = false
    @OptionGroup var common: CommonOptions

    func run() async throws {
        guard let speed = ReplaySpeed(argument: speed) else { throw ValidationError("--speed must be max or a number above 0; got \(speed.debugDescription)") }
        let files = try captures.flatMap { try CaptureReader.files(at: URL(fileURLWithPath: $0)) }
        let names = CaptureReplay.feedNames(in: files)
        guard let first = names.first else { throw ValidationError("the capture has no feed message to replay (quote, rate, limits, book, trade, coin)") }
        let endpoint = ingest ?? ProcessInfo.processInfo.environment["TICKWIRE_RATES_FETCHER_INGEST"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "tcp://127.0.0.1:7103"
        let runtime = try Runtime.bootstrap(service: "tickwire-replay", options: common)
        let connection = try FeedConnection(
            context: runtime.context, name: first, otherNames: Array(names.dropFirst()), endpoint: endpoint,
            security: try runtime.clientSecurity(connectingTo: "rates-fetcher"), logger: runtime.logger)
        let replay = CaptureReplay(files: files, connection: connection, speed: speed, retime: retime, hold: hold ? nil : .seconds(2), logger: runtime.logger)
        runtime.logger.info("replaying", metadata: [
            "files": "\(files.count)", "feeds": "\(names.joined(separator: ","))", "ingest": "\(endpoint)", "speed": "\(speed)",
        ])
        do {
            try await runtime.run([connection, replay])
        } catch where replay.finished {
            // The replay's end ends the process: its service group calls a service that returns "finished unexpectedly".
        }
    }
}
