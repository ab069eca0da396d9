import Foundation
import PresenterViews
import Synchronization

/// Looks at the presenter's copy of the streams (``PresenterState``) a few times a second and tells the
/// dashboard's open pages, as a `changed` event of `/events`, which kinds of data changed since: an
/// upstream's stream state (`rates-fetcher`, `converter`, `portfolio`, `price-alerts`) or the data itself
/// (`assets`, `wallets`, `book`, `coin`; `price`, `quote` and `status` only when they first arrive, as the
/// pages follow prices through their own events; `coin` and `price` also when a coin or an asset's price comes
/// or goes, as a coin added or removed at run time does). A waiting page then fetches itself again.
///
/// Sampling, rather than a call per update, keeps a burst of updates (the pipeline's 100,000 a second)
/// to one event per kind and interval, and leaves the streams' hot path alone.
final class StateWatch: Sendable {
    /// How often the state is looked at.
    static let interval = Duration.milliseconds(250)

    /// What is compared between two looks: each stream's state, when each kind of data last arrived, and the
    /// members of the kinds whose members can come and go (`coin`: the coins known; `price`: the assets priced).
    struct Sample: Sendable, Equatable {
        var streams: [String: String]
        var updated: [String: Date]
        var members: [String: Set<String>] = [:]
    }

    /// Kinds that change all the time and matter to a page only when they first arrive.
    static let firstArrivalOnly: Set<String> = ["price", "quote", "status"]

    private let state: PresenterState
    private let broadcast: PriceBroadcast
    private let last = Mutex<Sample?>(nil)

    /// A watch over `state` that tells `broadcast`'s listeners.
    init(state: PresenterState, broadcast: PriceBroadcast) {
        self.state = state
        self.broadcast = broadcast
    }

    /// Looks every ``interval`` until cancelled.
    func run() async {
        while !Task.isCancelled {
            await look()
            try? await Task.sleep(for: Self.interval)
        }
    }

    /// Looks once: sends the kinds that changed since the last look.
    func look() async {
        let sample = await sample()
        let previous = last.withLock { last in
            defer { last = sample }
            return last
        }
        broadcast.send(changed: Self.changes(from: previous, to: sample))
    }

    /// The kinds that changed from `old` (nil before the first look) to `new`.
    static func changes(from old: Sample?, to new: Sample) -> Set<String> {
        var kinds = Set(new.streams.filter { old?.streams[$0.key] != $0.value }.keys)
        for (kind, time) in new.updated {
            guard let before = old?.updated[kind] else {
                kinds.insert(kind)
                continue
            }
            if before != time, !firstArrivalOnly.contains(kind) { kinds.insert(kind) }
        }
        for (kind, members) in new.members where old.map({ $0.members[kind] != members }) ?? !members.isEmpty { kinds.insert(kind) }
        return kinds
    }

    /// The streams' states (price-alerts' as `price-alerts`) and when each kind of data last arrived.
    private func sample() async -> Sample {
        Sample(streams: await Self.streams(of: state), updated: await state.updated, members: [
            "coin": Set(await state.coins.keys), "price": Set(await state.prices.values.map(\.asset)),
        ])
    }

    private static func streams(of state: PresenterState) async -> [String: String] {
        var streams = await state.streams
        streams["price-alerts"] = await state.alertsStream
        return streams
    }

    /// What the presenter has at hand for its pages now.
    func availability() async -> Availability {
        let books = await state.books
        var tickers: Set<String> = []
        for book in books.keys {
            if await state.bitsoQuote(book: book) != nil { tickers.insert(book) }
        }
        let masterdata = await state.masterdata
        return Availability(
            streams: await Self.streams(of: state), assets: !masterdata.assets.isEmpty, wallets: !masterdata.wallets.isEmpty,
            books: Set(books.keys), tickers: tickers, priceCurrencies: Set(await state.prices.values.map(\.currency)))
    }
}
