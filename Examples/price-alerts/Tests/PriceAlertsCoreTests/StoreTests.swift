import Foundation
import GRDB
import PriceAlertsAPI
@testable import PriceAlertsCore
import Testing
import TickwireClients
import Money
import TickwireContract
import BusContract

/// The two ways rules are stored.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory, file

    var testDescription: String { rawValue }

    /// A fresh store of this kind, with its file's path (nil in memory).
    func make() throws -> (store: AlertStore, path: String?) {
        switch self {
        case .inMemory: return (try .inMemory(), nil)
        case .file:
            let path = temporaryDatabase()
            return (try .live(path: path), path)
        }
    }
}

/// A rule made by hand.
func rule(_ id: String, above: ExactDecimal? = nil, below: ExactDecimal? = nil, createdAt: Date = now) -> AlertRule {
    AlertRule(id: id, asset: "BTC", currency: "USD", above: above, below: below, createdAt: createdAt, holds: false, lastFired: nil)
}

@Suite("Alert store")
struct StoreTests {
    /// A request id answers its first rule, stored once; rules come back oldest first, thresholds exact.
    @Test(arguments: StoreKind.allCases)
    func addIsIdempotentAndOrdered(kind: StoreKind) async throws {
        let (store, path) = try kind.make()
        defer { path.map(removeDatabase) }
        let first = try await store.add(rule("b", above: try dec("65000.10"), createdAt: now.addingTimeInterval(1)), "req-1")
        #expect(first == rule("b", above: try dec("65000.10"), createdAt: now.addingTimeInterval(1)))
        #expect(first.above?.description == "65000.10")
        #expect(try await store.add(rule("c", below: 1), "req-1") == first)
        _ = try await store.add(rule("a", below: try dec("0.5")), nil)
        _ = try await store.add(rule("d", below: 2), nil)
        #expect(try await store.rules().map(\.id) == ["a", "d", "b"])
    }

    /// States are written for rules still stored; removing answers true once.
    @Test(arguments: StoreKind.allCases)
    func statesAndRemoval(kind: StoreKind) async throws {
        let (store, path) = try kind.make()
        defer { path.map(removeDatabase) }
        var held = try await store.add(rule("a", above: 1), nil)
        held.holds = true
        held.lastFired = now.addingTimeInterval(60)
        try await store.saveStates([held, rule("gone", above: 1)])
        #expect(try await store.rules() == [held])
        #expect(try await store.remove("a"))
        #expect(try await store.remove("a") == false)
        #expect(try await store.rules().isEmpty)
    }

    /// Rules, their states and request ids survive a new store on the same file.
    @Test func rulesSurviveReopening() async throws {
        let path = temporaryDatabase()
        defer { removeDatabase(path) }
        var held = try await AlertStore.live(path: path).add(rule("a", above: 1), "req-1")
        held.holds = true
        held.lastFired = now
        try await AlertStore.live(path: path).saveStates([held])
        let reopened = try AlertStore.live(path: path)
        #expect(try await reopened.rules() == [held])
        #expect(try await reopened.add(rule("b", above: 1), "req-1").id == "a")
    }

    /// The file store's writer syncs every commit (`synchronous=FULL`, 2), although GRDB's pool sets NORMAL as it
    /// turns WAL on: with NORMAL an acknowledged rule is lost when the file system fails before the next checkpoint.
    @Test func fileStoreSyncsEveryCommit() throws {
        let path = temporaryDatabase()
        defer { removeDatabase(path) }
        let pool = try AlertStore.openDatabase(path: path)
        #expect(try pool.write { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        #expect(try pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
    }

    /// A restarted service keeps its rules and whether each held: the same price does not fire again, a crossing does.
    @Test func stateSurvivesARestart() async throws {
        let path = temporaryDatabase()
        defer { removeDatabase(path) }
        let (before, firedBefore) = try makeState(store: .live(path: path))
        await before.apply(try update("BTC", "USD", "70000"))
        let holding = try await before.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        let waiting = try await before.add(AddAlertRequest(asset: "BTC", currency: "USD", below: 60_000))
        #expect(firedBefore.take().map(\.ruleId) == [holding.id])
        let rules = await before.list()

        let (after, firedAfter) = try makeState(store: .live(path: path))
        try await after.restore()
        #expect(await after.list() == rules)
        await after.apply(.snapshot([StreamUpdate(topic: try Topics.price(asset: "BTC", currency: "USD").topic, seq: 9, time: now,
                                                  source: "converter", value: try .of("BTC", "USD", "70000"))]))
        #expect(firedAfter.take().isEmpty, "it held before the restart: no second alert")
        await after.apply(try update("BTC", "USD", "59000"))
        #expect(firedAfter.take().map(\.ruleId) == [waiting.id])
        #expect(try await AlertStore.live(path: path).rules().map(\.holds) == [false, true])
    }

    /// `--database`, else `TICKWIRE_ALERTS_DATABASE`, else under `XDG_DATA_HOME`; `:memory:` opens a store in memory.
    @Test func databasePath() throws {
        #expect(AlertStore.databasePath(nil, environment: ["XDG_DATA_HOME": "/data"]) == "/data/tickwire/price-alerts.sqlite")
        #expect(AlertStore.databasePath(nil, environment: ["XDG_DATA_HOME": "/data", "TICKWIRE_ALERTS_DATABASE": "/x.sqlite"]) == "/x.sqlite")
        #expect(AlertStore.databasePath("/flag.sqlite", environment: ["TICKWIRE_ALERTS_DATABASE": "/x.sqlite"]) == "/flag.sqlite")
        #expect(AlertStore.databasePath(nil, environment: [:]).hasSuffix(".local/share/tickwire/price-alerts.sqlite"))
        _ = try AlertStore.open(":memory:")
    }

    /// The flags parse into endpoints, the converter's source and the database.
    @Test func options() throws {
        let options = try PriceAlertsOptions.parse([
            "--rep", "ipc:///tmp/a-rep", "--pub", "ipc:///tmp/a-pub", "--converter", "mock", "--database", ":memory:",
            "--converter-rep", "ipc:///tmp/c-rep", "--converter-pub", "ipc:///tmp/c-pub",
        ])
        #expect(options.configuration.rep == "ipc:///tmp/a-rep" && options.configuration.pub == "ipc:///tmp/a-pub")
        #expect(options.converter == .mock)
        #expect(options.databasePath(environment: [:]) == ":memory:")
        #expect(options.converterEndpoints.repEndpoint == "ipc:///tmp/c-rep" && options.converterEndpoints.pubEndpoint == "ipc:///tmp/c-pub")
        #expect(try PriceAlertsOptions.parse([]).converter == .live)
        #expect(throws: (any Error).self) { try PriceAlertsOptions.parse(["--converter", "nope"]) }
    }
}
