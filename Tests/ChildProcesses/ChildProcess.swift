import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A child process of a test or a benchmark, started with swift-subprocess and left running until it exits or
/// is signalled: a service, a Python peer, Chromium, `ip`.
///
/// Not Foundation's `Process`: with Swift 6.3.1 its `run()` on Linux over-reads the entries of `/proc/self/fd`
/// and now and then crashes the process that starts the child (swift-corelibs-foundation#5472), which a suite
/// starting dozens of children hits. swift-subprocess closes the inherited descriptors in C, safely; its
/// `run` is scoped to a closure, so this type keeps that call in a task of its own for as long as the child lives.
public final class ChildProcess: Sendable {
    /// The child's process id (valid while ``isRunning``).
    public let processIdentifier: pid_t
    private let exit: Task<Int32, any Error>
    private let exited: ExitFlag

    private init(processIdentifier: pid_t, exit: Task<Int32, any Error>, exited: ExitFlag) {
        self.processIdentifier = processIdentifier
        self.exit = exit
        self.exited = exited
    }

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`, in this process's environment
    /// updated with `environment`. Standard output is appended to `output` (or discarded when nil); standard error
    /// to `error`, or to wherever standard output goes when `error` is nil.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        output: URL? = nil, error: URL? = nil
    ) async throws -> ChildProcess {
        let configuration = Configuration(
            executable: Self.executable(executable), arguments: Arguments(arguments), environment: updated(environment))
        let standardOutput = try destination(output)
        let (identifiers, identified) = AsyncStream.makeStream(of: pid_t.self)
        let exited = ExitFlag()
        let exit: Task<Int32, any Error>
        if let error {
            let standardError = try destination(error)
            exit = Task { try await Self.run(configuration, standardOutput, standardError, identified, exited) }
        } else {
            exit = Task { try await Self.run(configuration, standardOutput, CombinedErrorOutput.combinedWithOutput, identified, exited) }
        }
        var iterator = identifiers.makeAsyncIterator()
        guard let processIdentifier = await iterator.next() else {
            _ = try await exit.value
            throw ChildProcessError(executable: executable)
        }
        return ChildProcess(processIdentifier: processIdentifier, exit: exit, exited: exited)
    }

    /// Runs `executable` to its end; its exit status (or the signal that ended it) and what it wrote to standard
    /// output and standard error, together.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let result = try await Subprocess.run(
            Self.executable(executable), arguments: Arguments(arguments), environment: updated(environment),
            output: .string(limit: 16 << 20), error: .combinedWithOutput)
        return (code(of: result.terminationStatus), result.standardOutput)
    }

    /// Whether it has not exited yet.
    public var isRunning: Bool { !exited.isSet }

    /// Sends `signal` while it runs.
    public func signal(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Waits for it to exit, at most `timeout`; its exit status (or the signal that ended it), nil when it still runs.
    public func waitForExit(within timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return isRunning ? nil : await status()
    }

    /// SIGTERM, then SIGKILL after `grace`; its exit status (or the signal that ended it).
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Int32 {
        terminate()
        if let status = await waitForExit(within: grace) { return status }
        signal(SIGKILL)
        return await status()
    }

    /// Its exit status once it has exited, or the signal that ended it (-1 when it could not be waited for).
    public func status() async -> Int32 {
        (try? await exit.value) ?? -1
    }

    private static func run<Error: ErrorOutputProtocol>(
        _ configuration: Configuration, _ output: FileDescriptorOutput, _ error: Error,
        _ identified: AsyncStream<pid_t>.Continuation, _ exited: ExitFlag
    ) async throws -> Int32 {
        let child = LeftRunning.Child()
        defer {
            child.exited()
            identified.finish()
        }
        let result = try await Subprocess.run(configuration, input: .none, output: output, error: error) { execution in
            child.started(execution.processIdentifier.value)
            identified.yield(execution.processIdentifier.value)
        }
        exited.set()
        return code(of: result.terminationStatus)
    }

    /// A descriptor appending to `url` (created if missing), or /dev/null; closed once the child has it.
    private static func destination(_ url: URL?) throws -> FileDescriptorOutput {
        let descriptor = try FileDescriptor.open(
            FilePath(url?.path ?? "/dev/null"), .writeOnly, options: [.append, .create, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        return .fileDescriptor(descriptor, closeAfterSpawningProcess: true)
    }

    /// A path (when `name` has a slash), else a name looked up in `PATH`.
    private static func executable(_ name: String) -> Executable {
        name.contains("/") ? .path(FilePath(name)) : .name(name)
    }

    /// This process's environment with `changes`.
    private static func updated(_ changes: [String: String]) -> Environment {
        .inherit.updating(Dictionary(uniqueKeysWithValues: changes.compactMap { key, value in
            Environment.Key(rawValue: key).map { ($0, Optional(value)) }
        }))
    }

    private static func code(of status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): Int32(code)
        case .signaled(let signal): Int32(signal)
        }
    }
}

/// The children started and not yet exited, killed when this process exits: a test that throws before it stops its
/// services, or whose stack fails halfway through starting, leaves nothing running after the test run.
private enum LeftRunning {
    private static let children = Mutex<Set<pid_t>>([])
    /// The `atexit` handler, installed with the first child.
    private static let installed: Void = { atexit { LeftRunning.kill() } }()

    /// One child's entry, from its start to its exit.
    final class Child: Sendable {
        private let identifier = Atomic<pid_t>(0)

        func started(_ processIdentifier: pid_t) {
            LeftRunning.installed
            identifier.store(processIdentifier, ordering: .relaxed)
            _ = children.withLock { $0.insert(processIdentifier) }
        }

        func exited() {
            let processIdentifier = identifier.load(ordering: .relaxed)
            if processIdentifier != 0 { _ = children.withLock { $0.remove(processIdentifier) } }
        }
    }

    private static func kill() {
        let left = children.withLock { $0 }
        guard !left.isEmpty else { return }
        FileHandle.standardError.write(Data("ChildProcesses: killing \(left.count) child process(es) left running: \(left.sorted())\n".utf8))
        for processIdentifier in left { Foundation.kill(processIdentifier, SIGKILL) }
    }
}

/// Set once the child has exited and been waited for.
private final class ExitFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A child that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What was to be started.
    public let executable: String
    public var description: String { "could not start \(executable)" }
}
