import Foundation
import PriceAlertsAPI
import PriceAlertsCore
import Testing
import TickwireClients
import BusContract
import TickwireContract

/// The first value `pick` finds in `events`, within five seconds.
func first<Value: Sendable, Found: Sendable>(
    _ events: StreamEvents<Value>, _ pick: @escaping @Sendable (StreamEvent<Value>) -> Found?
) async -> Found? {
    await withTaskGroup(of: Found?.self) { group in
        group.addTask {
            for await event in events { if let found = pick(event) { return found } }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(5))
            return nil
        }
        let found = await group.next() ?? nil
        group.cancelAll()
        return found
    }
}

/// PriceAlertsAPI's own client: its recorded answers, its failing value, and that it covers the contract.
@Suite("PriceAlertsClient: test, failing, and the contract's methods")
struct ClientTests {
    /// `test` answers what a real price-alerts answered (`scripts/record-client-fixtures.py`), and its panel lists them.
    @Test func recordedAnswersDecode() async throws {
        let alerts = PriceAlertsClient.test
        #expect(try await alerts.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1)).asset == "BTC")
        #expect(try await alerts.list().map(\.condition) == ["above", "below"])
        #expect(try await alerts.health().service == "price-alerts")
        let fired = await first(alerts.alerts()) { event -> [StreamUpdate<AlertFired>]? in
            if case .snapshot(let updates) = event { return updates }
            return nil
        }
        #expect(fired?.map(\.topic.rawValue) == ["alert.BTC.USD"])
        #expect(fired?.first?.source == "price-alerts")
        let panel = try await alerts.panel()
        #expect(panel.title == "Alerts")
        #expect(panel.sections[0].table?.rows.map { Array($0.cells.prefix(5)) } == [["BTC", "USD", "above", "1", "yes"], ["ETH", "USD", "below", "1", "no"]])
        #expect(panel.sections[2].table?.rows.map { $0.cells[5] } == ["70187.00000000"])
    }

    /// A `failing` client's closures throw an error naming the client and the closure; its stream says so.
    @Test func failingNamesWhatWasReached() async throws {
        await #expect(throws: Unimplemented("PriceAlertsClient.add")) {
            try await PriceAlertsClient.failing.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1))
        }
        await #expect(throws: Unimplemented("PriceAlertsClient.panel")) { try await PriceAlertsClient.failing.panel() }
        let reason = await first(PriceAlertsClient.failing.alerts()) { event -> String? in
            if case .unavailable(let reason) = event { return reason }
            return nil
        }
        #expect(reason?.contains("PriceAlertsClient.alerts") == true)
    }

    /// The contract lists the standard methods, the three of the rules and `panel`, and the client has a closure per
    /// method (`metrics` and `snapshot` aside) and one for its stream.
    @Test func clientOffersEveryMethod() {
        #expect(PriceAlertsAPI.methods.map(\.name) == ["health", "metrics", "snapshot", "alerts.add", "alerts.list", "alerts.remove", "panel"])
        #expect(PriceAlertsAPI.streams.map(\.kind) == ["alert", "heartbeat"])
        let closures = Mirror(reflecting: PriceAlertsClient.failing).children.count
        #expect(closures == PriceAlertsAPI.methods.filter { !["metrics", "snapshot"].contains($0.name) }.count + 1)
    }

    /// The service registers its own methods of the contract (the standard ones come from its runtime), and those
    /// that change state are marked so (with keys, only writers may call them).
    @Test func serviceRegistersTheContract() async throws {
        let (state, _) = try makeState()
        let methods = PriceAlerts.methods(state)
        let standard = Set(StandardAPI.methods(publishes: true).map(\.name))
        #expect(Set(methods.names) == Set(PriceAlertsAPI.methods.map(\.name)).subtracting(standard))
        #expect(methods.names.filter(methods.changesState) == ["alerts.add", "alerts.remove"])
    }

    /// The endpoints' defaults and variables, as the stack's files use them.
    @Test func endpoints() {
        #expect(PriceAlertsEndpoint.rep.resolve(nil, environment: [:]) == "tcp://127.0.0.1:7501")
        #expect(PriceAlertsEndpoint.pub.resolve(nil, environment: ["TICKWIRE_PRICE_ALERTS_PUB": "ipc:///tmp/a"]) == "ipc:///tmp/a")
        #expect(PriceAlertsEndpoint.rep.resolve("tcp://0.0.0.0:1", environment: ["TICKWIRE_PRICE_ALERTS_REP": "x"]) == "tcp://0.0.0.0:1")
    }
}
