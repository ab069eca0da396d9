import ArgumentParser
import Foundation
import Logging
import Prometheus
import Testing
@testable import ServiceSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("--metrics: settings, the endpoint, the HTTP listener")
struct MetricsServerTests {
    /// The endpoint forms `--metrics` takes, and the ones it refuses.
    @Test func parsesEndpoints() {
        func parsed(_ text: String) -> String? { MetricsSettings.parse(text).map { "\($0.host) \($0.port)" } }
        #expect(parsed("127.0.0.1:9101") == "127.0.0.1 9101")
        #expect(parsed("http://0.0.0.0:9201/") == "0.0.0.0 9201")
        #expect(parsed("[::1]:9301") == "::1 9301")
        #expect(parsed("localhost:0") == "localhost 0")
        for bad in ["9101", "127.0.0.1", "127.0.0.1:", "127.0.0.1:70000", "::1:9101", ":9101", "127.0.0.1:9x01", "[::1:9101"] {
            #expect(MetricsSettings.parse(bad) == nil, "\(bad) is not HOST:PORT")
        }
    }

    /// The service's own variable sets it, a wrong value names the flag, the variable and the form, and the token's
    /// variable is shared by every service.
    @Test func resolvesFromTheServicesVariable() throws {
        #expect(MetricsSettings.environmentVariable(service: "rates-fetcher") == "TICKWIRE_RATES_FETCHER_METRICS")
        let settings = try MetricsSettings.resolve(
            service: "rates-fetcher", endpoint: nil, token: nil,
            environment: ["TICKWIRE_RATES_FETCHER_METRICS": "127.0.0.1:9101", "TICKWIRE_METRICS_TOKEN": "s3cret"])
        #expect(settings == MetricsSettings(host: "127.0.0.1", port: 9101, token: "s3cret"))
        #expect(try MetricsSettings.resolve(service: "converter", endpoint: nil, token: nil, environment: [:]) == nil)
        let flag = try MetricsSettings.resolve(service: "converter", endpoint: "127.0.0.1:1", token: "", environment: ["TICKWIRE_CONVERTER_METRICS": "x"])
        #expect(flag == MetricsSettings(host: "127.0.0.1", port: 1), "the flag wins over the variable; an empty token is none")
        let error = #expect(throws: MetricsSettingsError.self) {
            try MetricsSettings.resolve(service: "converter", endpoint: nil, token: nil, environment: ["TICKWIRE_CONVERTER_METRICS": "9201"])
        }
        #expect(error?.message == "--metrics (env TICKWIRE_CONVERTER_METRICS) must be HOST:PORT, e.g. 127.0.0.1:9201 or [::1]:9201, "
            + "with a port from 0 to 65535; got \"9201\"")
    }

    /// Off loopback without a token is refused at start, as the bus refuses a bind without keys; a token or
    /// `--insecure` lets it serve.
    @Test func refusesAnOpenNonLoopbackListener() throws {
        let open = MetricsSettings(host: "0.0.0.0", port: 9201)
        let error = #expect(throws: MetricsExposureError.self) { try open.checkExposure(insecure: false) }
        #expect(error == MetricsExposureError(host: "0.0.0.0", port: 9201))
        #expect(error?.description.contains("--metrics-token") == true)
        try MetricsSettings(host: "0.0.0.0", port: 9201, token: "t").checkExposure(insecure: false)
        try open.checkExposure(insecure: true)
        try MetricsSettings(host: "127.0.0.1", port: 9201).checkExposure(insecure: false)
        try MetricsSettings(host: "::1", port: 9201).checkExposure(insecure: false)

        let options = try CommonOptions.parse(["--metrics", "0.0.0.0:9201"])
        #expect(throws: MetricsExposureError.self) { try options.metricsSettings(service: "converter", environment: [:]) }
        let bad = try CommonOptions.parse(["--metrics", "nine"])
        #expect(throws: ValidationError.self) { try bad.metricsSettings(service: "converter", environment: [:]) }
    }

    /// The endpoint's answers: the text with a token (its scheme in any case) or none needed, 401 with a missing or
    /// wrong one (counted), 404 elsewhere, 405 for a POST.
    @Test func answersByPathMethodAndToken() async throws {
        let registry = PrometheusCollectorRegistry()
        let endpoint = MetricsEndpoint(service: "converter", token: "s3cret", registry: registry) { Array("up 1\n".utf8) }
        #expect(await endpoint.respond(method: "GET", target: "/metrics", authorization: "Bearer s3cret").status == 200)
        #expect(await endpoint.respond(method: "GET", target: "/metrics", authorization: "bearer s3cret").status == 200)
        #expect(await endpoint.respond(method: "GET", target: "/metrics", authorization: "BEARER  s3cret").status == 200)
        #expect(await endpoint.respond(method: "GET", target: "/metrics?x=1", authorization: "Bearer s3cret").body == Array("up 1\n".utf8))
        let missing = await endpoint.respond(method: "GET", target: "/metrics", authorization: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == "Bearer realm=\"tickwire-metrics\"")
        #expect(await endpoint.respond(method: "GET", target: "/metrics", authorization: "Bearer s3creT").status == 401)
        #expect(await endpoint.respond(method: "GET", target: "/metrics", authorization: "s3cret").status == 401)
        #expect(await endpoint.respond(method: "GET", target: "/", authorization: "Bearer s3cret").status == 404)
        #expect(await endpoint.respond(method: "POST", target: "/metrics", authorization: "Bearer s3cret").status == 405)
        #expect(registry.emitToString().contains("tickwire_metrics_refused_total{service=\"converter\"} 3"))
    }

    /// A bearer token is read from its header whatever the scheme's case; another scheme, or none, has none. Secrets
    /// compare equal only when every byte is.
    @Test func readsBearerTokensAndComparesSecrets() {
        #expect(bearerToken(in: "Bearer abc") == "abc")
        #expect(bearerToken(in: "bEaReR abc.def") == "abc.def")
        #expect(bearerToken(in: "Bearer   abc") == "abc")
        #expect(bearerToken(in: "Basic YWxhZGRpbjpvcGVuc2VzYW1l") == nil)
        #expect(bearerToken(in: "Bearerabc") == nil)
        #expect(bearerToken(in: "Bearer") == nil && bearerToken(in: "Bearer ") == nil && bearerToken(in: nil) == nil)
        #expect(constantTimeEqual("s3cret", "s3cret"))
        #expect(!constantTimeEqual("s3cret", "s3creT") && !constantTimeEqual("s3cret", "s3cret ") && !constantTimeEqual("", "x"))
        #expect(constantTimeEqual("", ""))
    }

    /// `/proc/self/statm` and `/proc/self/stat` as Linux writes them (a command name with a space and a parenthesis).
    @Test func readsTheProcessSample() throws {
        let sample = ProcessMetrics.parse(
            statm: "765 435 406 5 0 123 0\n",
            stat: "2270 (my (cut)) R 2266 2266 17844 0 -1 4194304 99 0 1 0 150 50 0 0 20 0 1 0 288443 2998272 391\n",
            pageSize: 4096, ticksPerSecond: 100)
        #expect(sample == ProcessMetrics.Sample(residentBytes: 435 * 4096, virtualBytes: 765 * 4096, cpuSeconds: 2))
        #expect(ProcessMetrics.parse(statm: "", stat: "1 (x) R", pageSize: 4096, ticksPerSecond: 100) == nil)
    }

    /// A runtime's `/metrics` over real HTTP: Prometheus text with `# TYPE` lines, a counter the test made, the
    /// process's memory; and with a token, 401 without it.
    @Test func servesTheRuntimesMetricsOverHTTP() async throws {
        let runtime = try Runtime(service: "converter", logger: Logger(label: "test"))
        runtime.registry.makeCounter(descriptor: .named("tickwire_test_scrapes_total", help: "A counter of the test.")).increment(by: Int64(3))
        try await withListener(runtime, token: nil) { base in
            let (status, type, body) = try await get(base)
            #expect(status == 200)
            #expect(type == MetricsEndpoint.contentType)
            #expect(body.contains("# TYPE tickwire_test_scrapes_total counter\n"))
            #expect(body.contains("\ntickwire_test_scrapes_total 3\n"))
            #expect(body.contains("# TYPE process_resident_memory_bytes gauge\n"))
            #if os(Linux)
            let resident = body.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }
            let bytes = try #require(resident.flatMap { Double($0.split(separator: " ")[1]) })
            #expect(bytes > 1_000_000, "a Swift process holds more than a megabyte")
            #endif
            #expect(try await get(base.deletingLastPathComponent().appendingPathComponent("other")).status == 404)
        }
        try await withListener(runtime, token: "s3cret") { base in
            #expect(try await get(base).status == 401)
            #expect(try await get(base, token: "wrong").status == 401)
            let (status, _, body) = try await get(base, token: "s3cret")
            #expect(status == 200)
            #expect(body.contains("tickwire_metrics_refused_total{service=\"converter\"} 2"))
        }
    }

    /// Runs a listener of `runtime`'s metrics on a port the system picks, then `body` with its `/metrics` URL.
    private func withListener(_ runtime: Runtime, token: String?, _ body: (URL) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = MetricsServer(
            settings: MetricsSettings(host: "127.0.0.1", port: 0, token: token), endpoint: runtime.metricsEndpoint(token: token),
            logger: Logger(label: "test"), bound: { continuation.yield($0) })
        let running = Task { try await server.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(URL(string: "http://127.0.0.1:\(port)/metrics")!)
    }

    private func get(_ url: URL, token: String? = nil) async throws -> (status: Int, contentType: String?, body: String) {
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self))
    }
}
