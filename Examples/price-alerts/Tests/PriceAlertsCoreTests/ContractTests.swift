import Bus
import Foundation
import PriceAlertsAPI
import PriceAlertsCore
import Testing
import TickwireClients
import TickwireMocks
import BusContract
import TickwireContract

/// Where the client under a contract assertion comes from.
enum Implementation: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `PriceAlertsClient.live` through `LocalRPC` into this package's methods and state, its alerts
    /// from what the state publishes: the service with no socket.
    case live
    /// `PriceAlertsClient.mock`, PriceAlertsAPI's in-memory stand-in.
    case mock

    var testDescription: String { rawValue }

    /// Runs `body` with a client of this implementation that follows `converter`.
    func with(_ converter: ConverterClient, _ body: (PriceAlertsClient) async throws -> Void) async throws {
        switch self {
        case .mock:
            try await body(.mock(converter: converter))
        case .live:
            let alerts = AlertFeed()
            let state = PriceAlertsState(store: try .inMemory(), publish: alerts.publish, logger: quiet)
            try await state.restore()
            let prices = converter.prices()
            let following = Task { await state.follow(prices: prices) }
            defer { following.cancel() }
            try await body(.live(LocalRPC(PriceAlerts.methods(state, standard: Self.health(state))), alerts: alerts.feed.events))
        }
    }

    /// The `health` method as the service registers it.
    private static func health(_ state: PriceAlertsState) -> RPCMethods {
        var methods = RPCMethods()
        let started = Date()
        methods.register(StandardAPI.health) { await state.health(service: "price-alerts", started: started) }
        return methods
    }
}

/// The same assertions against this package's service and its client's mock, over the same
/// converters, so neither can drift from the contract.
@Suite("Contract: the service and PriceAlertsClient.mock agree")
struct ContractTests {
    /// Over a converter the test drives: every rule semantics, idempotency and every error.
    @Test(arguments: Implementation.allCases)
    func rulesOverDrivenPrices(_ implementation: Implementation) async throws {
        let converter = FakeConverter()
        try converter.send("BTC", "USD", "100")
        try await implementation.with(converter.client) { client in
            #expect(await converter.feed.subscribed())
            let log = AlertLog(client.alerts())
            // A rule on its own pair whose alert, once seen, says every price sent before was taken in.
            let sentinel = try await client.add(AddAlertRequest(asset: "SENTINEL", currency: "USD", above: 10))
            func settle() async throws {
                let seen = log.of(sentinel.id).count
                try converter.send("SENTINEL", "USD", "1")
                try converter.send("SENTINEL", "USD", "20")
                try #require(await log.wait(for: seen + 1, of: sentinel.id).count == seen + 1, "the sentinel did not fire")
            }
            try await settle()

            // Holds as it is added: fires at once.
            let atOnce = try await client.add(AddAlertRequest(asset: "btc", currency: "usd", above: 90))
            #expect(atOnce.asset == "BTC" && atOnce.currency == "USD" && atOnce.holds && atOnce.lastFired != nil)
            let first = try #require(await log.wait(for: 1, of: atOnce.id).first)
            #expect(first.asset == "BTC" && first.currency == "USD" && first.condition == "above" && first.threshold == 90 && first.price == 100)

            // Fires on crossing (at the threshold counts), once while it holds, again after it re-armed.
            let crossing = try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 150))
            #expect(!crossing.holds && crossing.lastFired == nil)
            try converter.send("BTC", "USD", "149.99999999")
            try await settle()
            #expect(log.of(crossing.id).isEmpty)
            try converter.send("BTC", "USD", "150")
            #expect(await log.wait(for: 1, of: crossing.id).map(\.price) == [150])
            try converter.send("BTC", "USD", "160")
            try converter.send("BTC", "USD", "170")
            try await settle()
            #expect(log.of(crossing.id).count == 1, "no second alert while it holds")
            #expect(try await client.list().first { $0.id == crossing.id }?.holds == true)
            try converter.send("BTC", "USD", "140")
            try await settle()
            #expect(try await client.list().first { $0.id == crossing.id }?.holds == false, "re-armed")
            try converter.send("BTC", "USD", "155")
            #expect(await log.wait(for: 2, of: crossing.id).map(\.price) == [150, 155])
            #expect(log.of(atOnce.id).count == 1, "held all along")

            // Below rules.
            let below = try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", below: 100))
            #expect(!below.holds)
            try converter.send("BTC", "USD", "100")
            let fell = try #require(await log.wait(for: 1, of: below.id).first)
            #expect(fell.condition == "below" && fell.threshold == 100 && fell.price == 100)

            // A retried request answers its first rule.
            let request = AddAlertRequest(asset: "ETH", currency: "EUR", below: 1_000, requestId: "contract-1")
            let once = try await client.add(request)
            #expect(try await client.add(request) == once)
            #expect(try await client.list().filter { $0.id == once.id }.count == 1)

            // Refusals.
            let invalid = RPCError.Code.invalidParams
            #expect(await code { try await client.add(AddAlertRequest(asset: "not a code", currency: "USD", above: 1)) } == invalid)
            #expect(await code { try await client.add(AddAlertRequest(asset: "BTC", currency: "not a code", above: 1)) } == invalid)
            #expect(await code { try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1, below: 1)) } == invalid)
            #expect(await code { try await client.add(AddAlertRequest(asset: "BTC", currency: "USD")) } == invalid)
            #expect(await code { try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 0)) } == invalid)
            #expect(await code { try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", below: try dec("-1"))) } == invalid)
            #expect(await code { try await client.remove(RemoveAlertRequest(id: "nope")) } == RPCError.Code.notFound)
            let unquoted = try await client.add(AddAlertRequest(asset: "BTC", currency: "XYZ", above: 1))
            #expect(unquoted.currency == "XYZ" && !unquoted.holds, "a well-formed currency nobody quotes is accepted")

            // Listing and removing.
            #expect(try await client.list().map(\.id) == [sentinel.id, atOnce.id, crossing.id, below.id, once.id, unquoted.id])
            #expect(try await client.remove(RemoveAlertRequest(id: atOnce.id)))
            #expect(await code { try await client.remove(RemoveAlertRequest(id: atOnce.id)) } == RPCError.Code.notFound)
            #expect(try await client.list().contains { $0.id == atOnce.id } == false)
            #expect(try await client.health().service == "price-alerts")

            // Its panel: a row per rule, each with its Remove sending the rule's id; the form offers the currencies priced.
            let panel = try await client.panel()
            #expect(panel.sections[0].table?.rows.map { $0.action?.fields.first?.value } == (try await client.list()).map(\.id))
            #expect(panel.sections[1].form?.fields[1].options == ["USD"])
            #expect(panel.sections[2].table?.rows.first?.cells.prefix(6).dropFirst() == ["BTC", "USD", "below", "100", "100"])
        }
    }

    /// Over `ConverterClient.mock()`: a rule that holds at any BTC price fires once the converter's first
    /// prices arrive, one that holds at none never does.
    @Test(arguments: Implementation.allCases)
    func rulesOverTheMockConverter(_ implementation: Implementation) async throws {
        let converter = ConverterClient.mock(fetcher: .mock(seed: 11, interval: .milliseconds(100)), logger: quiet)
        try await implementation.with(converter) { client in
            let log = AlertLog(client.alerts())
            let always = try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1))
            let never = try await client.add(AddAlertRequest(asset: "BTC", currency: "USD", below: 1))
            let alert = try #require(await log.wait(for: 1, of: always.id).first)
            #expect(alert.price > 1 && alert.currency == "USD")
            try await Task.sleep(for: .milliseconds(500))
            #expect(log.of(always.id).count == 1)
            #expect(log.of(never.id).isEmpty)
            let rules = try await client.list()
            #expect(rules.first { $0.id == always.id }?.holds == true)
            #expect(rules.first { $0.id == never.id }?.holds == false)
        }
    }
}
