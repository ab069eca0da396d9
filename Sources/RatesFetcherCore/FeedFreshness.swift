import Foundation
import Prometheus
import TickwireFeeds

/// The feeds' freshness as gauges, set when the metrics are read: `tickwire_feed_seconds_since_success{feed}` (since
/// the process started for a feed that has not succeeded yet) and `tickwire_feed_up{feed}` (1 while its last poll
/// succeeded, else 0).
enum FeedFreshness {
    /// Sets the gauges of every runner's feed in `registry`, as of `now`.
    static func update(_ runners: [FeedRunner], in registry: PrometheusCollectorRegistry, started: Date, now: Date = Date()) async {
        let since = MetricNameDescriptor(
            metricName: "tickwire_feed_seconds_since_success", unitName: "",
            helpText: "Seconds since the feed's last successful poll (since the start when it has had none).")
        let up = MetricNameDescriptor(
            metricName: "tickwire_feed_up", unitName: "", helpText: "1 while the feed's last poll succeeded, else 0.")
        for runner in runners {
            let status = await runner.status
            let labels = [("feed", status.feed)]
            // Whole seconds and a 0/1 flag, no money: they become floating point only as Prometheus samples, which
            // its text format defines as float64.
            let seconds = Int64(max(now.timeIntervalSince(status.lastSuccess ?? started), 0).rounded(.down))
            let isUp: Int64 = status.state == .ok ? 1 : 0
            registry.makeGauge(descriptor: since, labels: labels).set(to: Double(seconds))
            registry.makeGauge(descriptor: up, labels: labels).set(to: Double(isUp))
        }
    }
}
