import ArgumentParser
import Capture
import Foundation
import RecorderCore
import ServiceSupport

/// `tickwire-recorder`: follows topic prefixes of streams and writes what arrives into rotating capture files
/// (docs/capture.md).
@main
struct RecorderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-recorder",
        abstract: "Records streams' messages (receive time, topic, envelope) into gzip NDJSON capture files.",
        discussion: "e.g. tickwire-recorder --connect tcp://127.0.0.1:7101 --prefix quote. --prefix trade. --out captures/",
        version: buildVersion)

    @Option(help: ArgumentHelp(
        "[SERVICE=]ENDPOINT: a stream to follow; with --keys its CURVE key is SERVICE's (default rates-fetcher), e.g. converter=tcp://127.0.0.1:7202 (repeatable)",
        valueName: "service=endpoint"))
    var connect: [String] = []
    @Option(help: "a topic prefix to record, e.g. quote. (repeatable; default every topic)")
    var prefix: [String] = []
    @Option(help: "the directory the capture files go to")
    var out: String
    @Option(name: .customLong("rotate-size"), help: "begin a new file after this many compressed megabytes (default 256; 0: never)")
    var rotateSize: Double = 256
    @Option(name: .customLong("rotate-interval"), help: "begin a new file after this many seconds (default 3600; 0: never)")
    var rotateInterval: Double = 3600
    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard rotateSize >= 0, rotateInterval >= 0 else { throw ValidationError("--rotate-size and --rotate-interval must not be negative") }
    }

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "tickwire-recorder", options: common)
        let streams = try (connect.isEmpty ? ["tcp://127.0.0.1:7101"] : connect).map { argument -> RecordedStream in
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let (service, endpoint) = parts.count == 2 && !parts[0].contains(":") ? (parts[0], parts[1]) : ("rates-fetcher", argument)
            return RecordedStream(endpoint: endpoint, security: try runtime.clientSecurity(connectingTo: service))
        }
        let rotation = CaptureRotation(
            maxBytes: rotateSize > 0 ? Int64(rotateSize * 1_048_576) : nil,
            maxDuration: rotateInterval > 0 ? .milliseconds(Int64(rotateInterval * 1000)) : nil)
        let recorder = CaptureRecorder(
            context: runtime.context, streams: streams, prefixes: prefix, directory: URL(fileURLWithPath: out), rotation: rotation,
            logger: runtime.logger)
        try await runtime.run([recorder])
    }
}
