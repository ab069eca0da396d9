import Logging
import Synchronization
import Testing
@testable import ServiceSupport

@Suite("MemoryTuning: the arena limit honours MALLOC_ARENA_MAX and reports a value glibc would ignore")
struct MemoryTuningTests {
    /// Without the variable the service's own limit applies; with a positive integer the environment's does (glibc has
    /// applied it already, so `limitArenas` leaves it alone).
    @Test func environmentWins() {
        #expect(MemoryTuning.arenaLimit(environment: [:]) == .init(arenas: 2, fromEnvironment: false))
        #expect(MemoryTuning.arenaLimit(environment: ["MALLOC_ARENA_MAX": "1"]) == .init(arenas: 1, fromEnvironment: true))
        #expect(MemoryTuning.arenaLimit(environment: ["MALLOC_ARENA_MAX": "16"]) == .init(arenas: 16, fromEnvironment: true))
        #expect(MemoryTuning.limitArenas(environment: ["MALLOC_ARENA_MAX": "8"]) == .init(arenas: 8, fromEnvironment: true))
    }

    /// Zero, negative, empty, non-numeric or out-of-range values are refused: the default applies and the value is kept
    /// for the warning.
    @Test func refusedValuesFallBackToTheDefault() {
        for bad in ["0", "-2", "", "two", "2.5", " 4", "99999999999"] {
            #expect(MemoryTuning.arenaLimit(environment: ["MALLOC_ARENA_MAX": bad]) == .init(arenas: 2, fromEnvironment: false, ignored: bad), "\(bad)")
        }
    }

    /// A refused value is logged as a warning naming the variable, the value and the limit used; an accepted one is not.
    @Test func aRefusedValueIsLogged() throws {
        let capture = LogCapture()
        let logger = capture.logger(label: "memory")
        MemoryTuning.arenaLimit(environment: ["MALLOC_ARENA_MAX": "lots"]).report(to: logger)
        MemoryTuning.arenaLimit(environment: ["MALLOC_ARENA_MAX": "3"]).report(to: logger)
        MemoryTuning.arenaLimit(environment: [:]).report(to: logger)
        let lines = try capture.objects()
        #expect(lines.count == 1)
        #expect(lines.first?["level"] as? String == "warning")
        #expect(lines.first?["message"] as? String == #"MALLOC_ARENA_MAX must be a positive integer; got "lots", using 2 arenas"#)
    }

    /// The start-up release runs once, after its delay, and the service keeps running until it is cancelled.
    @Test func releasesOnceAfterStartUp() async throws {
        let releases = Atomic<Int>(0)
        let service = MemoryTuning.releaseAfterStartUp(delay: .milliseconds(50)) {
            releases.add(1, ordering: .relaxed)
            return true
        }
        let running = Task { try await service.run() }
        try await Task.sleep(for: .milliseconds(10))
        #expect(releases.load(ordering: .relaxed) == 0, "not before its delay")
        for _ in 0..<200 where releases.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(releases.load(ordering: .relaxed) == 1)
        running.cancel()
        try await running.value
        #expect(releases.load(ordering: .relaxed) == 1)
    }
}
