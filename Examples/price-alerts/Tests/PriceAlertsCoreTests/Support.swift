import Foundation
import Logging
import PriceAlertsAPI
import PriceAlertsCore
import Synchronization
import Testing
import TickwireClients
import BusContract
import Money
import TickwireContract

/// An exact decimal from its text, so prices read as they would be written by hand.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A fixed moment in whole seconds, so dates come back unchanged from the wire's and the store's milliseconds.
let now = Date(timeIntervalSince1970: 1_765_000_000)

/// A logger that keeps quiet.
let quiet: Logger = {
    var logger = Logger(label: "price-alerts-test")
    logger.logLevel = .critical
    return logger
}()

/// The JSON-RPC error code a call failed with, or nil when it did not fail with one.
func code(_ body: () async throws -> some Any) async -> Int? {
    do {
        _ = try await body()
        return nil
    } catch let error as RPCError {
        return error.code
    } catch {
        return nil
    }
}

/// A stream the test drives, as a Clone-pattern publisher would serve it: every reader gets the last
/// value of each topic as a snapshot, then every value sent, in order.
final class TestFeed<Value: Sendable>: Sendable {
    private struct State {
        var last: [Topic: StreamUpdate<Value>] = [:]
        var readers: [UUID: AsyncStream<StreamEvent<Value>>.Continuation] = [:]
        var subscriptions = 0
    }

    private let state = Mutex(State())
    private let source: String

    init(source: String) { self.source = source }

    /// The stream: a fresh subscription for each reader.
    var events: StreamEvents<Value> {
        .each { [self] in
            let id = UUID()
            let (stream, continuation) = AsyncStream<StreamEvent<Value>>.makeStream()
            continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.readers.removeValue(forKey: id) } }
            state.withLock { state in
                continuation.yield(.snapshot(state.last.values.sorted { $0.topic < $1.topic }))
                state.readers[id] = continuation
                state.subscriptions += 1
            }
            return stream
        }
    }

    /// Sends `value` on `topic` to every reader, numbered after the topic's last value.
    func send(_ value: Value, on topic: Topic) {
        state.withLock { state in
            let update = StreamUpdate(topic: topic, seq: (state.last[topic]?.seq ?? 0) + 1, time: Date(), source: source, value: value)
            state.last[topic] = update
            for reader in state.readers.values { reader.yield(.update(update)) }
        }
    }

    /// Waits until `count` readers subscribed since the feed was made.
    func subscribed(_ count: Int = 1, within timeout: Duration = .seconds(5)) async -> Bool {
        await eventually(within: timeout) { self.state.withLock { $0.subscriptions >= count } }
    }
}

/// A converter whose price stream the test drives; every other method fails, naming itself.
final class FakeConverter: Sendable {
    let feed = TestFeed<AssetPrice>(source: "converter")

    /// The client: `.failing`'s closures, and the driven price stream.
    var client: ConverterClient {
        let failing = ConverterClient.failing
        let events = feed.events
        return ConverterClient(
            convert: failing.convert, total: failing.total, rates: failing.rates, sources: failing.sources,
            convertSeries: failing.convertSeries, health: failing.health,
            prices: { events })
    }

    /// Publishes `asset`'s price in `currency`.
    func send(_ asset: String, _ currency: String, _ price: String) throws {
        feed.send(try AssetPrice.of(asset, currency, price), on: try Topics.price(asset: asset, currency: currency).topic)
    }
}

extension AssetPrice {
    /// A price as the converter publishes it.
    static func of(_ asset: String, _ currency: String, _ price: String) throws -> AssetPrice {
        AssetPrice(asset: asset, currency: currency, price: try dec(price), changePercent24h: nil, path: [asset, currency], quoteTime: nil)
    }
}

/// Every alert of a stream, as it arrives.
final class AlertLog: Sendable {
    private let alerts = Mutex<[AlertFired]>([])
    private let reading = Mutex<Task<Void, Never>?>(nil)

    /// Starts reading `events`.
    init(_ events: StreamEvents<AlertFired>) {
        let task = Task { [weak self] in
            for await event in events {
                switch event {
                case .snapshot(let updates): self?.alerts.withLock { $0 += updates.map(\.value) }
                case .update(let update): self?.alerts.withLock { $0.append(update.value) }
                case .removed, .unavailable: continue
                }
            }
        }
        reading.withLock { $0 = task }
    }

    deinit { reading.withLock { $0?.cancel() } }

    /// The alerts of rule `id` so far.
    func of(_ id: String) -> [AlertFired] { alerts.withLock { $0.filter { $0.ruleId == id } } }

    /// The alerts of rule `id` once there are `count` of them, or what there is after `timeout`.
    func wait(for count: Int, of id: String, within timeout: Duration = .seconds(10)) async -> [AlertFired] {
        _ = await eventually(within: timeout) { self.of(id).count >= count }
        return of(id)
    }
}

/// Alerts published by a state under test, as the publisher's subscribers would see them.
final class AlertFeed: Sendable {
    let feed = TestFeed<AlertFired>(source: "price-alerts")

    /// What the state publishes through.
    var publish: PriceAlertsState.Publish {
        { [feed] alert in feed.send(alert, on: try PriceAlertsAPI.alertTopic(asset: alert.asset, currency: alert.currency).topic) }
    }
}

/// Polls `condition` until it holds or `timeout` passes; its last answer.
func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return (try? await condition()) == true
}

/// A fresh SQLite file in a folder of its own; remove the folder with ``removeDatabase(_:)``.
func temporaryDatabase() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("price-alerts-\(UUID().uuidString)/alerts.sqlite").path
}

/// Removes the folder of a database made by ``temporaryDatabase()``.
func removeDatabase(_ path: String) {
    try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
}

/// Records what a state publishes, in order.
final class Published: Sendable {
    private let alerts = Mutex<[AlertFired]>([])

    /// What the state publishes through.
    var publish: PriceAlertsState.Publish { { [self] alert in alerts.withLock { $0.append(alert) } } }

    /// Every alert so far, and forgets them.
    func take() -> [AlertFired] {
        alerts.withLock { alerts in
            defer { alerts = [] }
            return alerts
        }
    }
}

/// A price update of `asset` in `currency`.
func update(_ asset: String, _ currency: String, _ price: String) throws -> StreamEvent<AssetPrice> {
    .update(StreamUpdate(topic: try Topics.price(asset: asset, currency: currency).topic, seq: 1, time: now, source: "converter",
                         value: try AssetPrice.of(asset, currency, price)))
}
