import Bus
import BusContract
import Foundation
import InMemoryTracing
import Testing
import Tracing
import ZeroMQ

/// An `InMemoryTracer` whose span context goes over the wire as a W3C `traceparent`, as the services' tracer's
/// does (the in-memory tracer's own keys are not members the bus carries): version 00, 32 and 16 lower-case hex
/// digits, sampled. A `traceparent` it cannot read is ignored, so the next span starts a fresh trace.
struct TraceparentTracer: Tracer {
    let memory = InMemoryTracer(idGenerator: .init(nextTraceID: { hex(bytes: 16) }, nextSpanID: { hex(bytes: 8) }))

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        memory.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() { memory.forceFlush() }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
        injector.inject("tickwire=test", forKey: "tracestate", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier),
              value.wholeMatch(of: /00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}/) != nil
        else { return }
        let parts = value.split(separator: "-").map(String.init)
        context.inMemorySpanContext = InMemorySpanContext(traceID: parts[1], spanID: parts[2], parentSpanID: nil)
    }

    /// The finished span named `name` of `kind`, if one ended.
    func finished(_ name: String, _ kind: SpanKind) -> FinishedInMemorySpan? {
        memory.finishedSpans.first { $0.operationName == name && $0.kind == kind }
    }
}

/// `bytes` random bytes in lower-case hex.
private func hex(bytes: Int) -> String {
    (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}

@Suite("W3C trace context across the bus")
struct TraceContextTests {
    /// A message published in a span carries its trace context; the subscriber's message gives it back as the
    /// parent of the consumer's span: one trace id from publisher to consumer, over a real PUB/SUB.
    @Test func publishedTraceContinuesAtTheSubscriber() async throws {
        let tracer = TraceparentTracer()
        let context = try ZMQContext()
        let service = try await PublishingService(context: context)
        defer { service.stop() }
        let subscriber = try service.subscriber(context: context, prefixes: ["quote."])
        let following = Task { await subscriber.run() }
        defer { following.cancel() }
        let topic = try Topic("quote.feed.BTC-EUR")
        // Publishes in a span until the subscriber has the value (its first snapshot may come before or after).
        let received = Task {
            for await event in subscriber.events {
                switch event {
                case .message(let message) where message.topic == topic: return Optional(message)
                case .snapshot(_, _, let messages): if let message = messages.first(where: { $0.topic == topic }) { return message }
                default: continue
                }
            }
            return nil
        }
        let published = try withTracer(tracer) {
            try withSpan("poll") { span in
                try service.publisher.publish(Price(symbol: "BTC", price: "1"), on: topic)
                return try #require(span.context.inMemorySpanContext)
            }
        }
        let message = try #require(await received.value)
        #expect(message.header.traceparent == "00-\(published.traceID)-\(published.spanID)-01")
        #expect(message.header.tracestate == "tickwire=test")
        #expect(try message.decode(Price.self).traceparent == message.header.traceparent)

        let consumed = try withTracer(tracer) {
            let parent = try #require(message.serviceContext)
            return try withSpan("reprice", context: parent) { try #require($0.context.inMemorySpanContext) }
        }
        #expect(consumed.traceID == published.traceID)
        #expect(consumed.parentSpanID == published.spanID)
    }

    /// A call is a client span whose context the request carries; the server answers in a server span named after
    /// the method, its child in the same trace, over a real REQ/ROUTER on ipc; an error answer fails both spans.
    @Test func clientSpanParentsServerSpan() async throws {
        let tracer = TraceparentTracer()
        let context = try ZMQContext()
        let address = ipcEndpoint()
        try await withTracer(tracer) {
            let server = try RPCServer(context: context, service: "test", endpoints: [address], methods: sampleMethods(), logger: testLogger)
            let serving = Task { await server.run() }
            defer { serving.cancel() }
            let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10))
            let caller = try await withSpan("trade") { span in
                _ = try await client.call(SampleAPI.echo, ConvertParams(amount: "1.50", currency: "EUR"))
                return try #require(span.context.inMemorySpanContext)
            }
            await #expect(throws: RPCError.notFound("no such thing")) { try await client.call(SampleAPI.fail) }
            await client.close()

            let clientSpan = try #require(tracer.finished("echo", .client))
            let serverSpan = try #require(tracer.finished("echo", .server))
            #expect(clientSpan.traceID == caller.traceID)
            #expect(clientSpan.parentSpanID == caller.spanID)
            #expect(serverSpan.traceID == caller.traceID)
            #expect(serverSpan.parentSpanID == clientSpan.spanID)
            #expect(serverSpan.attributes.get("rpc.method") == .string("echo"))
            #expect(serverSpan.status == nil)

            let failedClient = try #require(tracer.finished("fail", .client))
            let failedServer = try #require(tracer.finished("fail", .server))
            #expect(failedServer.parentSpanID == failedClient.spanID)
            #expect(failedServer.status?.code == .error)
            #expect(failedServer.errors.first?.error as? RPCError == .notFound("no such thing"))
            #expect(failedServer.attributes.get("rpc.jsonrpc.error_code") == .int64(-32001))
            #expect(failedClient.errors.first?.error as? RPCError == .notFound("no such thing"))
        }
    }

    /// A traceparent the tracer cannot read (wrong length, bad hex, version ff, not a string) is no error: the
    /// request is answered, in a server span of a fresh trace.
    @Test(arguments: [
        #""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7""#,
        #""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01""#,
        #""traceparent":"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#,
        #""traceparent":42,"tracestate":{"a":1}"#,
    ])
    func badTraceparentStartsAFreshTrace(member: String) async throws {
        let tracer = TraceparentTracer()
        let reply = try await withTracer(tracer) {
            try await response(sampleMethods(), #"{"jsonrpc":"2.0","id":1,"method":"ping",\#(member)}"#)
        }
        #expect(reply["result"] as? String == "pong")
        let span = try #require(tracer.finished("ping", .server))
        #expect(span.parentSpanID == nil)
        #expect(span.traceID.count == 32)
        #expect(span.traceID != "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    /// A stream message whose traceparent is bad or not a string is read as usual; its context gives no parent.
    @Test func badTraceparentInAnEnvelopeIsIgnored() throws {
        let tracer = TraceparentTracer()
        let body = #"{"version":1,"type":"quote","seq":1,"time":"2026-11-23T10:15:30.123Z","source":"feed","traceparent":"00-xyz-01","data":{"symbol":"BTC","price":"1"}}"#
        let message = try BusMessage(topic: "quote.feed.BTC", body: Data(body.utf8))
        let context = try #require(withTracer(tracer) { message.serviceContext })
        #expect(context.inMemorySpanContext == nil)
        let notAString = try BusMessage(topic: "quote.feed.BTC", body: Data(body.replacingOccurrences(of: #""00-xyz-01""#, with: "7").utf8))
        #expect(notAString.header.traceparent == nil)
        #expect(try notAString.decode(Price.self).data == Price(symbol: "BTC", price: "1"))
    }

    /// Without a tracer (the no-op one) nothing is written: no member in an envelope published in a span, none in
    /// a request made in one.
    @Test func noTracerWritesNoMembers() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [ipcEndpoint()], logger: testLogger)
        let topic = try Topic("quote.feed.BTC-EUR")
        _ = try withSpan("poll") { _ in try publisher.publish(Price(symbol: "BTC", price: "1"), on: topic) }
        let body = try #require(publisher.snapshot(prefix: "quote.").entries.first?.body)
        #expect(!body.contains("trace"))
        await publisher.close()

        let address = ipcEndpoint()
        let fake = try OwnedSocket(context: context, type: .router, name: "fake-server") { try $0.bind(address) }
        let answering = Task {
            var iterator = fake.incoming.makeAsyncIterator()
            guard let request = await iterator.next() else { return "" }
            fake.post(request.dropLast() + [Data(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#.utf8)])
            return String(decoding: request.last ?? Data(), as: UTF8.self)
        }
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10))
        #expect(try await withSpan("trade") { _ in try await client.call(SampleAPI.ping) } == "pong")
        let request = await answering.value
        #expect(request.contains(#""method":"ping""#))
        #expect(!request.contains("trace"))
        await client.close()
        await fake.close()
    }

    /// The members round-trip through both coders, and are left out when absent.
    @Test func envelopeMembersRoundTrip() throws {
        let time = try #require(Wire.parseDate("2026-11-23T10:15:30.123Z"))
        let trace = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "a=1")
        let envelope = Envelope(type: "quote", seq: 7, time: time, source: "bitso", trace: trace, data: Price(symbol: "BTC", price: "1"))
        // Foundation's coders with the wire's dates, for the `Codable` path.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Wire.format(date))
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { try #require(Wire.parseDate($0.singleValueContainer().decode(String.self))) }
        for body in [try Wire.encode(envelope), try encoder.encode(envelope)] {
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains(#""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#))
            #expect(text.contains(#""tracestate":"a=1""#))
            #expect(try Wire.decode(Envelope<Price>.self, from: body).trace == trace)
            #expect(try decoder.decode(Envelope<Price>.self, from: body).trace == trace)
            #expect(try BusMessage(topic: "quote.bitso.BTC", body: body).trace == trace)
        }
        let bare = Envelope(type: "quote", seq: 7, time: time, source: "bitso", data: Price(symbol: "BTC", price: "1"))
        #expect(!String(decoding: try Wire.encode(bare), as: UTF8.self).contains("trace"))
        #expect(!String(decoding: try encoder.encode(bare), as: UTF8.self).contains("trace"))
        #expect(try Wire.decode(Envelope<Price>.self, from: try Wire.encode(bare)).trace == nil)
    }
}
