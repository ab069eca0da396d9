import Foundation
import Prometheus
import Synchronization

/// The process's own metrics under the names Prometheus' client libraries give them (`process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_cpu_seconds_total`, `process_open_fds`, `process_start_time_seconds`),
/// which swift-prometheus does not export: read from Linux's `/proc/self` when scraped. Elsewhere only the start
/// time is known.
final class ProcessMetrics: Sendable {
    /// One reading of `/proc/self`.
    struct Sample: Equatable {
        var residentBytes: Double
        var virtualBytes: Double
        var cpuSeconds: Double
    }

    private let resident: Gauge
    private let virtual: Gauge
    private let openFDs: Gauge
    private let cpu: Counter
    /// The CPU seconds already added to `cpu`: a counter only grows, by what the kernel counted since.
    private let cpuCounted = Mutex<Double>(0)

    /// The process's metrics in `registry`, started at `started`.
    init(registry: PrometheusCollectorRegistry, started: Date) {
        resident = registry.makeGauge(descriptor: .named("process_resident_memory_bytes", help: "Resident memory size in bytes."))
        virtual = registry.makeGauge(descriptor: .named("process_virtual_memory_bytes", help: "Virtual memory size in bytes."))
        openFDs = registry.makeGauge(descriptor: .named("process_open_fds", help: "Number of open file descriptors."))
        cpu = registry.makeCounter(descriptor: .named("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds."))
        registry.makeGauge(descriptor: .named("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds."))
            .set(to: started.timeIntervalSince1970)
    }

    /// Reads `/proc/self` into the metrics; leaves them as they were where it cannot be read.
    func update() {
        if let sample = Self.read() {
            resident.set(to: sample.residentBytes)
            virtual.set(to: sample.virtualBytes)
            let added = cpuCounted.withLock { counted in
                defer { counted = max(counted, sample.cpuSeconds) }
                return sample.cpuSeconds - counted
            }
            if added > 0 { cpu.increment(by: added) }
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFDs.set(to: Double(descriptors.count))
        }
    }

    /// `/proc/self/statm` and `/proc/self/stat` read now; nil where they are not (not Linux).
    static func read() -> Sample? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        else { return nil }
        return parse(statm: statm, stat: stat, pageSize: Double(sysconf(Int32(_SC_PAGESIZE))),
                     ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The sample in `statm` (sizes in pages: total, resident, ...) and `stat` (after the command's closing
    /// parenthesis, which a command name may contain: state, then utime and stime as its 12th and 13th fields).
    static func parse(statm: String, stat: String, pageSize: Double, ticksPerSecond: Double) -> Sample? {
        let pages = statm.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard pages.count >= 2, let end = stat.lastIndex(of: ")"), ticksPerSecond > 0 else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count >= 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return Sample(residentBytes: pages[1] * pageSize, virtualBytes: pages[0] * pageSize,
                      cpuSeconds: (user + system) / ticksPerSecond)
    }
}

extension MetricNameDescriptor {
    /// The metric called `name` in full, described by `help`.
    static func named(_ name: String, help: String) -> Self {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
