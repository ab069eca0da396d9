import Bus
import Foundation
import Logging
import Synchronization
import Testing
import ZeroMQ
import BusContract

/// Log lines kept in memory, to read what a subscriber said.
final class RecordedLog: Sendable {
    let lines = Mutex<[String]>([])

    /// A logger that records here.
    var logger: Logger {
        Logger(label: "tickwire.test.recorded") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (metadata.merging(event.metadata ?? [:]) { $1 }).map { "\($0.key)=\($0.value)" }.sorted()
            log.lines.withLock { $0.append(([event.message.description] + fields).joined(separator: " ")) }
        }
    }
}

@Suite("The envelope's version")
struct EnvelopeVersionTests {
    let time = Wire.parseDate("2026-11-23T10:15:30.123Z") ?? Date(timeIntervalSince1970: 0)

    func body(version: String) -> Data {
        Data(#"{\#(version)"type":"quote","seq":1,"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"1"}}"#.utf8)
    }

    /// Envelopes are written with the current version, first.
    @Test func writtenWithTheCurrentVersion() throws {
        let envelope = Envelope(type: "quote", seq: 1, time: time, source: "raw", data: Price(symbol: "BTC", price: "1"))
        #expect(envelope.version == EnvelopeVersion.current)
        #expect(String(decoding: try Wire.encode(envelope), as: UTF8.self)
            == #"{"version":1,"type":"quote","seq":1,"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"1"}}"#)
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(envelope)) as? [String: Any]
        #expect(foundation?["version"] as? Int == 1, "its Codable conformance writes the version too")
    }

    /// An envelope without a version (a plugin written before versions) is version 1, on both decoders.
    @Test func missingVersionIsOne() throws {
        let message = try BusMessage(topic: "quote.raw.BTC-USD", body: body(version: ""))
        #expect(message.header.version == 1)
        #expect(try message.decode(Price.self).version == 1)
        #expect(try Wire.decode(Envelope<Price>.self, from: body(version: #""version":null,"#)).version == 1)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { try Wire.parseDate($0.singleValueContainer().decode(String.self)) ?? Date() }
        #expect(try decoder.decode(Envelope<Price>.self, from: body(version: "")).version == 1)
    }

    /// An unknown version is refused, with a reason that names it, by the bus and by Foundation's decoder alike.
    @Test(arguments: [#""version":2,"#, #""version":0,"#, #""version":-1,"#])
    func unknownVersionIsRefused(version: String) throws {
        let error = #expect(throws: BusError.self) { try BusMessage(topic: "quote.raw.BTC-USD", body: body(version: version)) }
        #expect(error?.description.contains("unsupported envelope version") == true, "\(String(describing: error))")
        #expect(error?.description.contains("this reader knows versions 1 to 1") == true)
        #expect(throws: DecodingError.self) { try Wire.decode(Envelope<Price>.self, from: body(version: version)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EnvelopeHeader.self, from: body(version: version)) }
        #expect(throws: (any Error).self) { try Wire.decode(Envelope<Price>.self, from: body(version: #""version":"1","#)) }
    }

    /// A subscriber drops an envelope of an unknown version, logs why (and counts it as malformed), and keeps reading.
    @Test func subscriberDropsAnUnknownVersionAndKeepsReading() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let raw = try OwnedSocket(context: context, type: .pub, name: "raw") { try $0.bind(address) }
        let log = RecordedLog()
        let snapshotCalls = Atomic<Int>(0)
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: address, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600),
            snapshot: { _ in
                snapshotCalls.add(1, ordering: .relaxed)
                return Snapshot(publisher: "raw", instance: "one", entries: [])
            }, logger: log.logger)
        let replica = Replica()
        let tasks = follow(subscriber, into: replica)
        #expect(await heartbeating(raw) { snapshotCalls.load(ordering: .relaxed) == 1 })
        try await Task.sleep(for: .milliseconds(200))
        raw.post([Data("quote.raw.BTC-USD".utf8),
                  Data(#"{"version":2,"type":"quote","seq":1,"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"2"}}"#.utf8)])
        raw.post([Data("quote.raw.BTC-USD".utf8), body(version: #""version":1,"#)])
        #expect(await replica.wait { $0["quote.raw.BTC-USD"] == "1" })
        let lines = log.lines.withLock { $0 }
        #expect(lines.contains { $0.contains("dropped a malformed stream message") && $0.contains("unsupported envelope version 2") }, "\(lines)")
        tasks.forEach { $0.cancel() }
        await raw.close()
    }
}
