import Bus
import Foundation
import PriceAlertsAPI
import PriceAlertsCore
import Testing
import TickwireClients
import BusContract
import TickwireContract

/// A state over an in-memory store at the fixed moment, with what it publishes recorded.
func makeState(store: AlertStore? = nil) throws -> (state: PriceAlertsState, published: Published) {
    let published = Published()
    let state = PriceAlertsState(store: try store ?? .inMemory(), publish: published.publish, logger: quiet, now: { now })
    return (state, published)
}

@Suite("Rules: when an alert fires")
struct RuleTests {
    /// A rule that already holds at the last price fires as it is added, and says so in its answer.
    @Test func firesAtOnceWhenItHoldsOnAdd() async throws {
        let (state, published) = try makeState()
        await state.apply(try update("BTC", "USD", "70000"))
        let rule = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        #expect(rule.holds)
        #expect(rule.lastFired == now)
        #expect(published.take() == [AlertFired(ruleId: rule.id, asset: "BTC", currency: "USD", condition: "above",
                                                threshold: 65_000, price: 70_000, firedAt: now)])
    }

    /// A rule added without a price fires with the first price that holds.
    @Test func firesWithTheFirstPriceWhenAddedBeforeAny() async throws {
        let (state, published) = try makeState()
        let rule = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        #expect(!rule.holds && rule.lastFired == nil)
        #expect(published.take().isEmpty)
        await state.apply(try update("BTC", "USD", "65000"))
        #expect(published.take().map(\.price) == [65_000], "at the threshold counts as above it")
    }

    /// An `above` rule fires when the price crosses up, once while it holds, and again after it stopped holding.
    @Test func firesOnCrossingOnceWhileHoldingAndRearms() async throws {
        let (state, published) = try makeState()
        await state.apply(try update("BTC", "USD", "60000"))
        let rule = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        #expect(!rule.holds)
        await state.apply(try update("BTC", "USD", "64999.99999999"))
        #expect(published.take().isEmpty)
        await state.apply(try update("BTC", "USD", "65000.5"))
        #expect(published.take().map(\.price) == [try dec("65000.5")])
        for price in ["66000", "70000", "65000"] { await state.apply(try update("BTC", "USD", price)) }
        #expect(published.take().isEmpty, "no second alert while the condition holds")
        #expect(await state.list().first?.holds == true)

        await state.apply(try update("BTC", "USD", "64000"))
        #expect(published.take().isEmpty)
        #expect(await state.list().first?.holds == false, "re-armed")
        await state.apply(try update("BTC", "USD", "66000"))
        #expect(published.take().map(\.price) == [66_000])
    }

    /// A `below` rule fires when the price falls to its threshold or under, and names its condition.
    @Test func belowRules() async throws {
        let (state, published) = try makeState()
        await state.apply(try update("ETH", "SEK", "30000"))
        let rule = try await state.add(AddAlertRequest(asset: "eth", currency: "sek", below: 25_000))
        #expect(rule.asset == "ETH" && rule.currency == "SEK" && rule.condition == "below" && rule.threshold == 25_000)
        await state.apply(try update("ETH", "SEK", "25000.01"))
        #expect(published.take().isEmpty)
        await state.apply(try update("ETH", "SEK", "25000"))
        #expect(published.take() == [AlertFired(ruleId: rule.id, asset: "ETH", currency: "SEK", condition: "below",
                                                threshold: 25_000, price: 25_000, firedAt: now)])
        await state.apply(try update("ETH", "SEK", "20000"))
        #expect(published.take().isEmpty)
    }

    /// Prices of other pairs, and of the same asset in another currency, leave a rule alone.
    @Test func onlyItsOwnPairMoves() async throws {
        let (state, published) = try makeState()
        _ = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1))
        await state.apply(try update("BTC", "SEK", "700000"))
        await state.apply(try update("ETH", "USD", "3000"))
        #expect(published.take().isEmpty)
    }

    /// A snapshot replaces the prices held: a rule added after it is checked only at prices still quoted;
    /// each of its prices is checked as an update would be.
    @Test func snapshotsReplaceThePrices() async throws {
        let (state, published) = try makeState()
        await state.apply(try update("BTC", "USD", "70000"))
        await state.apply(.snapshot([StreamUpdate(topic: try Topics.price(asset: "ETH", currency: "USD").topic, seq: 4, time: now,
                                                  source: "converter", value: try .of("ETH", "USD", "3000"))]))
        let btc = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1))
        let eth = try await state.add(AddAlertRequest(asset: "ETH", currency: "USD", above: 1))
        #expect(!btc.holds)
        #expect(eth.holds)
        #expect(published.take().map(\.ruleId) == [eth.id])
    }

    /// A retried request id answers its first rule, even after that rule fired or was removed, and adds nothing.
    @Test func requestIdsAreIdempotent() async throws {
        let (state, published) = try makeState()
        let request = AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000, requestId: "req-1")
        let first = try await state.add(request)
        #expect(try await state.add(request) == first)
        await state.apply(try update("BTC", "USD", "70000"))
        #expect(published.take().count == 1)
        #expect(try await state.add(request) == first, "the first answer, not the rule as it is now")
        #expect(published.take().isEmpty)
        #expect(await state.list().map(\.id) == [first.id])
        #expect(try await state.remove(RemoveAlertRequest(id: first.id)))
        #expect(try await state.add(request) == first)
        #expect(await state.list().isEmpty)
        let other = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000, requestId: "req-2"))
        #expect(other.id != first.id)
    }

    /// Bad codes and thresholds are refused with invalid params, an unknown id with not found; the state goes on.
    @Test func refusals() async throws {
        let (state, _) = try makeState()
        let bad: [AddAlertRequest] = [
            AddAlertRequest(asset: "not a code", currency: "USD", above: 1),
            AddAlertRequest(asset: "BTC", currency: "US D", above: 1),
            AddAlertRequest(asset: "", currency: "USD", above: 1),
            AddAlertRequest(asset: "BTC", currency: "USD"),
            AddAlertRequest(asset: "BTC", currency: "USD", above: 2, below: 1),
            AddAlertRequest(asset: "BTC", currency: "USD", above: 0),
            AddAlertRequest(asset: "BTC", currency: "USD", below: try dec("-5")),
        ]
        for request in bad {
            #expect(await code { try await state.add(request) } == RPCError.Code.invalidParams, "\(request)")
        }
        #expect(await code { try await state.remove(RemoveAlertRequest(id: "nope")) } == RPCError.Code.notFound)
        #expect(await state.list().isEmpty)
        let unknown = try await state.add(AddAlertRequest(asset: "NEWCOIN", currency: "XYZ", above: 1))
        #expect(unknown.asset == "NEWCOIN" && unknown.currency == "XYZ", "well-formed codes nobody quotes are accepted")
    }

    /// A price that is not positive is skipped: it neither fires nor re-arms a rule.
    @Test func nonPositivePricesAreSkipped() async throws {
        let (state, published) = try makeState()
        let rule = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", below: 10))
        await state.apply(try update("BTC", "USD", "0"))
        await state.apply(try update("BTC", "USD", "-1"))
        #expect(published.take().isEmpty)
        await state.apply(try update("BTC", "USD", "9"))
        #expect(published.take().map(\.ruleId) == [rule.id])
    }

    /// `health` follows the converter's stream.
    @Test func healthFollowsTheConverter() async throws {
        let (state, _) = try makeState()
        #expect(await state.health(service: "price-alerts", started: now).upstreams["converter"]?.contains("waiting") == true)
        await state.apply(.snapshot([]))
        #expect(await state.health(service: "price-alerts", started: now).status == "ok")
        await state.apply(.unavailable(reason: "no heartbeat from the converter"))
        #expect(await state.health(service: "price-alerts", started: now).upstreams["converter"] == "no heartbeat from the converter")
    }

    /// When the store cannot write a rule's state, the alert still goes out and the state keeps serving;
    /// when it cannot add a rule, the request fails with an internal error and nothing is kept.
    @Test func storeFailuresAreSurvived() async throws {
        let memory = try AlertStore.inMemory()
        var store = memory
        store.saveStates = AlertStore.failing.saveStates
        let (state, published) = try makeState(store: store)
        let rule = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 1))
        await state.apply(try update("BTC", "USD", "2"))
        #expect(published.take().map(\.ruleId) == [rule.id])
        #expect(await state.list().first?.holds == true)
        #expect(try await memory.rules().first?.holds == false, "not written")

        let (failing, _) = try makeState(store: .failing)
        let methods = LocalRPC(PriceAlerts.methods(failing))
        #expect(await code { try await methods.call(PriceAlertsAPI.add, AddAlertRequest(asset: "BTC", currency: "USD", above: 1)) }
                == RPCError.Code.internalError)
        #expect(try await methods.call(PriceAlertsAPI.list).isEmpty)
    }

    /// Requests that are not JSON, not the method's params, or unknown methods are answered with their
    /// JSON-RPC errors, and the methods go on answering.
    @Test func malformedRequestsAreAnswered() async throws {
        let (state, _) = try makeState()
        let methods = PriceAlerts.methods(state)
        let cases: [(String, Int)] = [
            ("{broken", -32700),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.add","params":{"asset":"BTC","currency":"USD","above":"abc"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.add","params":{"asset":"BTC","currency":"USD","above":1.5}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.add","params":{"currency":"USD","above":"1"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.add","params":{"asset":"not a code","currency":"USD","above":"1"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.add","params":{"asset":"BTC","currency":"USD","above":"-1"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.remove","params":{"id":"nope"}}"#, -32001),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.remove","params":{}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":1,"method":"alerts.nope"}"#, -32601),
        ]
        for (request, expected) in cases {
            let reply = try JSONSerialization.jsonObject(with: await methods.handle(Data(request.utf8))) as? [String: Any]
            let error = reply?["error"] as? [String: Any]
            #expect(error?["code"] as? Int == expected, "\(request)")
        }
        let added = try JSONSerialization.jsonObject(with: await methods.handle(Data(
            #"{"jsonrpc":"2.0","id":2,"method":"alerts.add","params":{"asset":"BTC","currency":"USD","above":"1"}}"#.utf8))) as? [String: Any]
        let result = try #require(added?["result"] as? [String: Any])
        #expect(result["above"] as? String == "1" && result["holds"] as? Bool == false)
        #expect(await state.list().count == 1)
    }
}
