import Foundation
import PresenterViews
import TickwireContract
import Synchronization

/// Looks at the presenter's copy of the streams (``PresenterState``) a few times a second while a page listens,
/// and tells the dashboard's open pages, as a `changed` event of `/events`, which kinds of data changed since: an
/// upstream's stream state (`rates-fetcher`, `converter`, `portfolio`) or the data itself
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

    /// Looks once: sends the kinds that changed since the last look. While no page listens it does nothing but
    /// keep the last look, so the first listener after a while hears what changed meanwhile.
    func look() async {
        guard broadcast.listenerCount > 0 || last.withLock({ $0 == nil }) else { return }
        let sample = await state.watchSample()
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

    /// The kind of change a portfolio's change is: `portfolio:<name>` for one about a portfolio, which only that portfolio's
    /// screen (and the pages that follow any portfolio) fetch again; `portfolio` for one about none (the watch list, which
    /// all share) and for an edit, which may have moved an activity out of the portfolio shown.
    static func kind(of change: PortfolioChange) -> String {
        guard let portfolio = change.portfolio, change.reason != "trade.edited" else { return "portfolio" }
        return "portfolio:\(portfolio)"
    }

    /// What the presenter has at hand for its pages now.
    func availability() async -> Availability {
        await state.availability()
    }
}

extension PresenterState {
    /// The streams' states and when each kind of data last arrived, read in one call.
    fileprivate func watchSample() -> StateWatch.Sample {
        StateWatch.Sample(streams: streams, updated: updated, members: [
            "coin": coins.symbols, "price": Set(prices.values.lazy.map(\.asset)),
        ])
    }

    /// What the presenter has at hand for its pages, read in one call.
    fileprivate func availability() -> Availability {
        Availability(
            streams: streams, assets: !masterdata.assets.isEmpty, wallets: !masterdata.wallets.isEmpty,
            books: Set(books.keys), tickers: Set(books.keys.filter { bitsoQuote(book: $0) != nil }),
            priceCurrencies: Set(prices.values.lazy.map(\.currency)))
    }
}
