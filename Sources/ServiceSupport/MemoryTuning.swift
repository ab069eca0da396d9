import Foundation
import Logging
import NIOCore

#if canImport(CMalloc)
import CMalloc
#endif

/// glibc malloc settings a service makes for itself at start (README "Memory").
///
/// glibc gives each thread that allocates an arena of its own, up to 8 per core, and keeps an arena's freed pages
/// resident. A service's threads (socket owners, libzmq's, NIO's, the cooperative pool) each leave such pages
/// behind after start-up. At most ``defaultArenas`` arenas make a thread's freed memory reusable by the others.
/// `MALLOC_ARENA_MAX` set in the environment wins (glibc reads it itself); a value glibc would ignore is reported.
public enum MemoryTuning {
    /// The environment variable that overrides the arena limit, as glibc names it.
    public static let arenaVariable = "MALLOC_ARENA_MAX"
    /// The arena limit a service sets when the environment gives none.
    public static let defaultArenas = 2

    /// What ``limitArenas(environment:)`` decided.
    public struct ArenaLimit: Equatable, Sendable {
        /// The most arenas malloc makes.
        public var arenas: Int
        /// Whether the environment set it (then glibc applied it before the service ran).
        public var fromEnvironment: Bool
        /// The environment's value when it was not a positive integer and the default applies instead.
        public var ignored: String?
    }

    /// The arena limit for `environment`: its `MALLOC_ARENA_MAX` when that is a positive integer, else
    /// ``defaultArenas`` (with the refused value in ``ArenaLimit/ignored``).
    public static func arenaLimit(environment: [String: String]) -> ArenaLimit {
        guard let text = environment[arenaVariable] else { return ArenaLimit(arenas: defaultArenas, fromEnvironment: false) }
        guard let arenas = Int(text), arenas > 0, arenas <= Int(Int32.max) else {
            return ArenaLimit(arenas: defaultArenas, fromEnvironment: false, ignored: text)
        }
        return ArenaLimit(arenas: arenas, fromEnvironment: true)
    }

    /// Sets malloc's arena limit (``arenaLimit(environment:)``). Call it first in an executable's `run()`, before
    /// threads start allocating: threads that already have an arena keep it.
    @discardableResult
    public static func limitArenas(environment: [String: String] = ProcessInfo.processInfo.environment) -> ArenaLimit {
        let limit = arenaLimit(environment: environment)
        #if canImport(CMalloc)
        if !limit.fromEnvironment { _ = mallopt(M_ARENA_MAX, Int32(limit.arenas)) }
        #endif
        return limit
    }

    /// Returns the free pages of every arena to the system (`malloc_trim(0)`), e.g. once start-up's snapshots have
    /// been applied and freed; `true` when any were returned.
    @discardableResult
    public static func releaseFreePages() -> Bool {
        #if canImport(CMalloc)
        malloc_trim(0) == 1
        #else
        false
        #endif
    }

    /// A service that returns the pages freed by start-up to the system once (`release`, by default
    /// ``releaseFreePages()``), `delay` after it starts: by then the first snapshots and the start-up's decoding have
    /// been applied and dropped. It then idles until shutdown (a service that returned would end the process).
    public static func releaseAfterStartUp(
        delay: Duration = .seconds(2), release: @escaping @Sendable () -> Bool = { releaseFreePages() }
    ) -> LoopService {
        LoopService {
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            _ = release()
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// Has NIO's singleton event loop group run one loop instead of one per core (a service's HTTP listeners need no
    /// more), unless `NIO_SINGLETON_GROUP_LOOP_COUNT` is set (NIO then reads it). NIO stops the process if this is set
    /// after the group is first used or set twice, so only an executable's `run()` calls it, first.
    public static func singleEventLoop(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil else { return }
        NIOSingletons.groupLoopCountSuggestion = 1
    }
}

extension MemoryTuning.ArenaLimit {
    /// Logs a refused `MALLOC_ARENA_MAX` as a warning, naming the value and the limit used instead.
    public func report(to logger: Logger) {
        guard let ignored else { return }
        logger.warning(
            "\(MemoryTuning.arenaVariable) must be a positive integer; got \(ignored.debugDescription), using \(arenas) arenas",
            metadata: ["variable": "\(MemoryTuning.arenaVariable)"])
    }
}
