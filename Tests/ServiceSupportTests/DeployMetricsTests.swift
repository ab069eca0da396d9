import Foundation
import ServiceSupport
import Testing

/// The repository's root, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func read(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
}

/// The plugin packages' source folders: `Sources` of each folder of Examples.
private func pluginSources() -> [URL] {
    let examples = root.appendingPathComponent("Examples")
    return ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []).sorted()
        .map { examples.appendingPathComponent("\($0)/Sources") }
        .filter { FileManager.default.fileExists(atPath: $0.path) }
}

/// Every metric name the code exports: the labels of swift-metrics' counters, timers, gauges and recorders, and
/// the names given to Prometheus' registry, in Sources and the plugins' sources (a timer's histogram with its
/// `_bucket`, `_sum` and `_count` series).
private func exportedMetrics() throws -> Set<String> {
    var names: Set<String> = []
    for folder in [root.appendingPathComponent("Sources")] + pluginSources() {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let source = try String(contentsOf: url, encoding: .utf8)
            for match in source.matches(of: /(Counter|Timer|Gauge|Recorder)\(label: "([a-z_]+)"/) {
                let name = String(match.output.2)
                names.insert(name)
                if match.output.1 == "Timer" { names.formUnion(["_bucket", "_sum", "_count"].map { name + $0 }) }
            }
            for match in source.matches(of: /(?:metricName: |\.named\()"((?:tickwire|process)_[a-z_]+)"/) {
                names.insert(String(match.output.1))
            }
        }
    }
    return names
}

@Suite("deploy/: the Grafana dashboard, the scrape configuration and the pods' annotations")
struct DeployMetricsTests {
    /// The dashboard parses, every panel queries Prometheus, and every metric it queries is one the services export.
    @Test func dashboardQueriesExportedMetrics() throws {
        let json = try JSONSerialization.jsonObject(with: Data(try read("deploy/grafana/tickwire.json").utf8)) as? [String: Any]
        let dashboard = try #require(json)
        #expect(dashboard["uid"] as? String == "tickwire")
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        var queried: Set<String> = []
        for panel in panels where panel["type"] as? String != "row" {
            let targets = try #require(panel["targets"] as? [[String: Any]], "panel \(panel["title"] ?? "?") has no targets")
            #expect(!targets.isEmpty)
            for target in targets {
                let expr = try #require(target["expr"] as? String)
                for match in expr.matches(of: /\b((?:tickwire|process)_[a-z_]+)\b/) { queried.insert(String(match.output.1)) }
            }
        }
        let exported = try exportedMetrics()
        #expect(exported.contains("tickwire_rpc_errors_total"), "the scan of the sources finds the RPC server's counter")
        #expect(queried.subtracting(exported).isEmpty, "queried but exported by no service: \(queried.subtracting(exported).sorted())")
        for required in [
            "tickwire_feed_seconds_since_success", "tickwire_bus_delivery_lag_seconds_bucket", "tickwire_rpc_duration_seconds_bucket",
            "tickwire_rpc_errors_total", "tickwire_bus_dropped_total", "tickwire_auth_refused_total", "tickwire_metrics_refused_total",
            "tickwire_bus_reader_queue_depth", "tickwire_converter_quote_to_price_seconds_bucket", "process_resident_memory_bytes",
        ] {
            #expect(queried.contains(required), "the dashboard shows \(required)")
        }
    }

    /// The scrape configuration parses, and its `tickwire` job scrapes every service at the port compose gives it.
    @Test func prometheusScrapesEveryService() throws {
        let config = try BlockYAML.parse(try read("deploy/prometheus/prometheus.yml"))
        let jobs = try #require(config["scrape_configs"]).items
        let tickwire = try #require(jobs.first { $0["job_name"]?.text == "tickwire" })
        var targets: [String: String] = [:]
        for group in try #require(tickwire["static_configs"]).items {
            let app = try #require(group["labels"]?["app"]?.text)
            targets[app] = try #require(group["targets"]?.items.first?.text)
        }
        var expected = MetricsSettings.conventionalPorts.filter { $0.key != "tickwire-proxy" && $0.key != "presenter" }
            .mapValues { "127.0.0.1:\($0)" }
        expected["presenter"] = "127.0.0.1:8080"
        #expect(targets.filter { expected[$0.key] != nil } == expected)

        // Each service at its conventional port, a plugin the stack runs at the port compose gives it.
        let compose = try read("compose.yaml")
        for (app, target) in targets where app != "presenter" {
            #expect(compose.contains("\"--metrics\", \"\(target)\""), "compose gives \(app) --metrics \(target)")
        }

        let pods = try #require(jobs.first { $0["job_name"]?.text == "kubernetes-pods" })
        let keep = try #require(pods["relabel_configs"]?.items.first)
        #expect(keep["source_labels"]?.items.first?.text == "__meta_kubernetes_pod_annotation_prometheus_io_scrape")
        #expect(keep["action"]?.text == "keep")
    }

    /// Each Kubernetes pod is annotated for scraping at the port its `--metrics` listens on (the presenter: its dashboard):
    /// the services' at their conventional ports, a plugin's (any other manifest with a pod) at the one it declares.
    @Test func kubernetesPodsAreAnnotated() throws {
        let base = root.appendingPathComponent("deploy/kubernetes/base")
        let manifests = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { $0.hasSuffix(".yaml") }.sorted()
            .filter { try read("deploy/kubernetes/base/\($0)").contains("\n  template:\n") }
        let services = manifests.map { String($0.dropLast(".yaml".count)) }
        #expect(Set(services).isSuperset(of: ["rates-fetcher", "converter", "portfolio", "presenter"]), "\(services)")
        for service in services {
            let manifest = try read("deploy/kubernetes/base/\(service).yaml")
            let declared = manifest.firstMatch(of: /prometheus.io\/port: "([0-9]+)"/).flatMap { Int($0.output.1) }
            let port = try #require(service == "presenter" ? 8080 : MetricsSettings.conventionalPorts[service] ?? declared, "\(service)")
            #expect(manifest.contains("prometheus.io/scrape: \"true\""), "\(service)")
            #expect(manifest.contains("prometheus.io/port: \"\(port)\""), "\(service)")
            #expect(manifest.contains("prometheus.io/path: /metrics"), "\(service)")
            if service != "presenter" {
                #expect(manifest.contains("\"--metrics\", \"http://0.0.0.0:\(port)\""), "\(service) listens for scrapes")
                #expect(manifest.contains("- name: metrics\n              containerPort: \(port)"), "\(service) declares its metrics port")
            }
        }
    }

    /// The YAML reader refuses what it does not understand rather than misreading it.
    @Test func yamlReaderRefusesWhatItDoesNotRead() throws {
        #expect(try BlockYAML.parse("a:\n  - b: 1\n    c: [x, \"y\"]\n") == .map(["a": .list([.map(["b": .scalar("1"), "c": .list([.scalar("x"), .scalar("y")])])])]))
        for bad in ["a: 1\n b: 2\n", "a: &x 1\n", "a: |\n  text\n", "a:\n\t- 1\n", "a: [1, 2\n", "a: 1\na: 2\n"] {
            #expect(throws: BlockYAML.Failure.self, "\(bad.debugDescription)") { try BlockYAML.parse(bad) }
        }
    }
}
