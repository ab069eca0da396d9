import Foundation
import Testing
import ZeroMQ
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("--metrics end to end", .serialized)
struct MetricsEndToEndTests {
    /// The real rates-fetcher and converter serve Prometheus text on `/metrics`: their own metrics (the feeds'
    /// freshness, the converter's stream lag and its RPC latency) and the process's memory.
    @Test func fetcherAndConverterServePrometheusText() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + [
            "--feeds", "mock", "--seed", "7", "--metrics", "127.0.0.1:0",
        ], in: endpoints.directory)
        defer { Task { await fetcher.stop() } }
        let converter = try await ServiceProcess("converter", endpoints.converterArguments + ["--metrics", "127.0.0.1:0"], in: endpoints.directory)
        defer { Task { await converter.stop() } }
        let context = try ZMQContext()
        try await waitUntilHealthy(client(context, endpoints.converterRep), converter)

        let fetcherText = try await scrape(fetcher)
        #expect(fetcherText.contains("# TYPE tickwire_feed_seconds_since_success gauge"))
        #expect(fetcherText.contains("tickwire_feed_seconds_since_success{feed=\"bitso\"} "))
        #expect(fetcherText.contains("tickwire_feed_up{feed=\"bitso\"} 1"), "the mock feed has succeeded")
        #expect(fetcherText.contains("# TYPE tickwire_bus_published_total counter"))
        #expect(fetcherText.contains("# TYPE process_resident_memory_bytes gauge"))

        // The converter answers `health` (the calls above) and takes in quotes; its stream lag is a histogram.
        #expect(await eventually { (try? await scrape(converter))?.contains("tickwire_bus_delivery_lag_seconds_bucket{") == true })
        let converterText = try await scrape(converter)
        #expect(converterText.contains("# TYPE tickwire_rpc_duration_seconds histogram"))
        #expect(converterText.contains("method=\"health\""))
        #expect(converterText.contains("# TYPE tickwire_bus_reader_queue_depth gauge"))
        #expect(converterText.contains("tickwire_converter_quote_to_price_seconds_bucket{le=\"300.0\"}"), "buckets up to 5 minutes")
        #expect(await eventually {
            let text = (try? await scrape(converter)) ?? ""
            let count = text.split(separator: "\n").first { $0.hasPrefix("tickwire_converter_quote_to_price_seconds_count ") }
            return count.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 > 0 } == true
        }, "prices made from the mock quotes are timed")
        let resident = converterText.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }
        #expect(resident.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 > 1_000_000 } == true, "\(resident ?? "none")")
    }

    /// `--metrics` on every interface without a token is refused at start, with what to do instead.
    @Test func refusesAnOpenNonLoopbackListener() async throws {
        let endpoints = try Endpoints()
        let converter = try await ServiceProcess("converter", endpoints.converterArguments + ["--metrics", "0.0.0.0:0"], in: endpoints.directory)
        #expect(await eventually { !converter.isRunning })
        #expect(await converter.stop() != 0)
        #expect(converter.log.contains("refusing to serve /metrics on 0.0.0.0:0 without a token"), "\(converter.log.suffix(2000))")
    }

    /// `service`'s `/metrics` (at the port it logged): the body, after checking the status and the content type.
    private func scrape(_ service: ServiceProcess) async throws -> String {
        var port: Int?
        _ = await eventually {
            port = service.log.firstMatch(of: /metrics listening.*http:\/\/127\.0\.0\.1:(\d+)\/metrics|http:\/\/127\.0\.0\.1:(\d+)\/metrics.*metrics listening/)
                .flatMap { Int($0.output.1 ?? $0.output.2 ?? "") }
            return port != nil
        }
        let found = try #require(port, "\(service.name) logged no metrics address: \(service.log.suffix(2000))")
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: URL(string: "http://127.0.0.1:\(found)/metrics")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return String(decoding: data, as: UTF8.self)
    }
}
