import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Figures of paired rounds: the median and the spread (lowest to highest).
struct Spread {
    var values: [Double]

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// "median (low-high)" with `digits` decimals and `unit` after each figure.
    func text(_ digits: Int, _ unit: String) -> String {
        guard let low = values.min(), let high = values.max() else { return "n/a" }
        return "\(fmt(median, digits))\(unit) (\(fmt(low, digits))-\(fmt(high, digits))\(unit))"
    }
}

/// The figures of paired rounds (issue 31): each round runs Tickwire, its peer and the limit back to back, so a slow
/// spell of the shared machine falls on all of them alike. A figure is the median of its rounds with their spread; a
/// ratio is the median of each round's own ratio, never a ratio of medians taken in different minutes.
struct PairedRounds {
    /// Each figure's value in every round that measured it, in round order.
    private(set) var figures: [String: [Double]] = [:]

    /// Keeps this round's `value` of `name` (nothing when it was not measured).
    mutating func record(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        figures[name, default: []].append(value)
    }

    /// Keeps this round's `numerator / denominator` as `name`, when both were measured in it.
    mutating func recordRatio(_ name: String, _ numerator: Double?, _ denominator: Double?) {
        guard let numerator, let denominator, denominator != 0 else { return }
        record(name, numerator / denominator)
    }

    /// The spread of `name` over the rounds; `nil` when no round measured it.
    subscript(name: String) -> Spread? { figures[name].map(Spread.init) }

    /// The median of `name` over the rounds.
    func median(_ name: String) -> Double? { self[name]?.median }

    /// "median (low-high)" of `name`, or "n/a".
    func text(_ name: String, _ digits: Int, _ unit: String) -> String { self[name]?.text(digits, unit) ?? "n/a" }
}

/// Instructions per message counted by callgrind: the margin between two runs of a `tickwire-bench` profiling mode
/// (`small` and `large` messages), so start-up and set-up cancel out. Callgrind runs a process's threads one at a time,
/// so the count covers every thread (libzmq's I/O threads included) without the scheduler's noise.
enum Callgrind {
    /// Why callgrind cannot count here, or `nil` when it can.
    static func unavailable() async -> String? {
        let version = await shell("valgrind --version 2>/dev/null")
        guard version.hasPrefix("valgrind") else { return "valgrind is not installed (apt-get install valgrind)" }
        return await shell("objcopy --version 2>/dev/null").isEmpty ? "objcopy (binutils) is not installed" : nil
    }

    /// This executable, for valgrind to run.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Instructions per message of `tickwire-bench MODE... N`, from N = `small` and N = `large`.
    static func perMessage(_ mode: [String], small: Int, large: Int) async throws -> Double {
        let copy = try await strippedCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let first = try await instructions(copy, mode + ["\(small)"]), second = try await instructions(copy, mode + ["\(large)"])
        return Double(second - first) / Double(large - small)
    }

    /// A copy of this executable without its debug information, which valgrind's reader gives up on
    /// ("Possibly corrupted debuginfo file" for the 100 MB release build); the instructions are the same.
    static func strippedCopy() async throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-stripped-\(getpid())-\(UUID().uuidString.prefix(8))").path
        let result = try await Subprocess.run(.name("objcopy"), arguments: ["--strip-debug", executable, copy], output: .discarded, error: .string(limit: 1 << 16))
        guard result.terminationStatus.isSuccess else { throw BenchError("objcopy --strip-debug failed: \(result.standardError)") }
        return copy
    }

    /// The instructions callgrind counted over one run of `PROGRAM ARGUMENTS`.
    static func instructions(_ program: String, _ arguments: [String]) async throws -> Int {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-callgrind-\(getpid())-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await Subprocess.run(
            .name("valgrind"), arguments: Arguments(["--tool=callgrind", "--callgrind-out-file=\(file)", program] + arguments),
            output: .discarded, error: .string(limit: 1 << 20))
        guard result.terminationStatus.isSuccess else {
            throw BenchError("callgrind of \(arguments.joined(separator: " ")) failed (\(result.terminationStatus)): \(result.standardError.suffix(400))")
        }
        let text = try String(contentsOfFile: file, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }),
              let count = Int(line.split(separator: " ").last ?? "")
        else { throw BenchError("callgrind wrote no total for \(arguments.joined(separator: " "))") }
        return count
    }
}
