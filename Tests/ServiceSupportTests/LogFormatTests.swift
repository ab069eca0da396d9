import ArgumentParser
import Foundation
import Logging
import Testing
@testable import ServiceSupport

@Suite("--log-format json: one JSON object a line; --log-format and --otlp-endpoint's values")
struct LogFormatTests {
    let capture = LogCapture()

    /// A line holds time, level, service, logger, message, the merged metadata (nested values as JSON) and where it
    /// was logged, and parses with JSONSerialization.
    @Test func writesOneObjectWithEveryField() throws {
        var logger = capture.logger(label: "tickwire.converter", service: "converter", level: .info,
                                    metadataProvider: Logger.MetadataProvider { ["trace_id": "from the provider", "pair": "provided"] })
        logger[metadataKey: "pair"] = "BTC-USD"
        logger[metadataKey: "instance"] = "a"
        logger.notice("rates refreshed", metadata: [
            "pair": "EUR-USD", "count": "\(3)",
            "sources": .array(["ecb", .dictionary(["bitso": "up"])]),
            "feed": .dictionary(["name": "ecb", "age": .stringConvertible(12)]),
        ])
        logger.debug("not at info")
        let lines = capture.all
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasSuffix("}\n"))
        let object = try #require(try capture.objects().first)
        #expect(Set(object.keys) == ["time", "level", "service", "logger", "message", "metadata", "source", "location"])
        #expect(object["level"] as? String == "notice")
        #expect(object["service"] as? String == "converter")
        #expect(object["logger"] as? String == "tickwire.converter")
        #expect(object["message"] as? String == "rates refreshed")
        #expect(object["source"] as? String == "ServiceSupportTests")
        let location = try #require(object["location"] as? String)
        #expect(location.hasPrefix("ServiceSupportTests/LogFormatTests.swift:"))
        let time = try #require(object["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["pair"] as? String == "EUR-USD", "the call's value wins over the provider's and the logger's")
        #expect(metadata["instance"] as? String == "a")
        #expect(metadata["trace_id"] as? String == "from the provider")
        #expect(metadata["count"] as? String == "3")
        let sources = try #require(metadata["sources"] as? [Any])
        #expect(sources.first as? String == "ecb")
        #expect(sources.last as? [String: String] == ["bitso": "up"])
        #expect(metadata["feed"] as? [String: String] == ["name": "ecb", "age": "12"])
    }

    /// Whatever a message or a value holds (quotes, backslashes, line breaks, every control character, U+2028,
    /// non-ASCII), the line is one line of valid JSON that gives it back unchanged.
    @Test func escapesEverythingIntoOneLine() throws {
        let logger = capture.logger(label: "tickwire.presenter")
        let controls = String(String.UnicodeScalarView((0...0x1F).compactMap(Unicode.Scalar.init) + ["\u{7F}"]))
        let hostile = "a \"quoted\" \\ back\\slash\nsecond line\r\n\t{\"json\": [1]}\u{2028}\u{2029} é 🙂 \(controls)"
        logger.error("\(hostile)", metadata: [hostile: "\(hostile)", "error": .array(["\(hostile)"])])
        let line = try #require(capture.all.first)
        #expect(line.filter { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.count == 1, "one line: \(line.debugDescription)")
        #expect(!line.unicodeScalars.dropLast().contains { $0.value < 0x20 || $0 == "\u{2028}" })
        let object = try #require(try capture.objects().first)
        #expect(object["message"] as? String == hostile)
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata[hostile] as? String == hostile)
        #expect(metadata["error"] as? [String] == [hostile])
    }

    /// `--log-format` by flag, variable (any case) or default; a wrong value names the flag, the variable and the form.
    @Test func resolvesTheLogFormat() throws {
        #expect(try LogFormat.resolve(nil, environment: [:]) == .text)
        #expect(try LogFormat.resolve(nil, environment: ["TICKWIRE_LOG_FORMAT": "JSON"]) == .json)
        #expect(try LogFormat.resolve("text", environment: ["TICKWIRE_LOG_FORMAT": "json"]) == .text)
        let error = #expect(throws: LogFormatError.self) { try LogFormat.resolve(nil, environment: ["TICKWIRE_LOG_FORMAT": "xml"]) }
        #expect(error?.message == "--log-format (env TICKWIRE_LOG_FORMAT) must be text or json; got \"xml\"")
        let options = try CommonOptions.parse(["--log-format", "yaml"])
        let validation = #expect(throws: ValidationError.self) { try options.format(environment: [:]) }
        #expect(validation?.message.contains("must be text or json; got \"yaml\"") == true)
        #expect(try CommonOptions.parse(["--log-format", "json"]).format(environment: [:]) == .json)
    }

    /// A wrong `--log-level` names the flag, the variable and the levels.
    @Test func namesTheLogLevelsVariable() throws {
        let options = try CommonOptions.parse(["--log-level", "loud"])
        let error = #expect(throws: ValidationError.self) { try options.level }
        #expect(error?.message == "--log-level (env TICKWIRE_LOG_LEVEL) must be one of trace, debug, info, notice, warning, error, critical; got \"loud\"")
    }

    /// `--otlp-endpoint`: none by default; a value that is no http(s) URL names the flag and its variable; a build
    /// without the OTLP trait refuses any endpoint, saying how to build with it; one with it adds `/v1/traces`.
    @Test func resolvesTheOTLPEndpoint() throws {
        #expect(try OTLPSettings.resolve(nil, environment: [:]) == nil)
        for bad in ["127.0.0.1:4318", "ftp://collector:21", "http://", "collector", "http://collector:4318/?x=1"] {
            let error = #expect(throws: OTLPSettingsError.self) { try OTLPSettings.resolve(nil, environment: ["TICKWIRE_OTLP_ENDPOINT": bad]) }
            #expect(error?.message == "--otlp-endpoint (env TICKWIRE_OTLP_ENDPOINT) must be an http or https URL of an OTLP/HTTP collector, "
                + "e.g. http://127.0.0.1:4318 (spans go to its /v1/traces); got \(bad.debugDescription)")
        }
        let options = try CommonOptions.parse(["--otlp-endpoint", "http://127.0.0.1:4318"])
        #if OTLP
        #expect(try options.otlpSettings(environment: [:]) == OTLPSettings(tracesURL: "http://127.0.0.1:4318/v1/traces"))
        #expect(try OTLPSettings.resolve("https://otel.example:4318/v1/traces/", environment: [:])?.tracesURL == "https://otel.example:4318/v1/traces")
        #else
        let error = #expect(throws: ValidationError.self) { try options.otlpSettings(environment: [:]) }
        #expect(error?.message.contains("needs a build with the OTLP trait, which this one is not: build with `swift build --traits OTLP` (or `make run OTLP=1`)") == true)
        #endif
    }
}
