import BusContract
import Foundation
import Synchronization
import TickwireContract

extension PortfolioStore {
    /// A store that keeps everything in memory, with the SQLite store's rules: a request id answers its
    /// first write again, trades come ordered by date, each in its portfolio (`main` unless the request names one; an
    /// edit without one keeps it where it is), every change is kept in the history, the watch list in the order assets
    /// were added. What mocks and in-process tests use; nothing survives the process.
    public static func memory() -> Self {
        struct State {
            var trades: [String: Trade] = [:]
            /// Each request id's write (`add`, `edit`, `remove`) and its answer.
            var answers: [String: (action: String, trade: Trade?)] = [:]
            var revisions: [TradeRevision] = []
            var watched: [String] = []
            var prices: [String: StoredPrice] = [:]
            var documents: [String: Data] = [:]

            /// The activities of `assets` with `change` made: `trade` in place of the one with `id` (or removed when nil).
            func after(_ id: String, _ trade: Trade?, assets: Set<String>) -> [Trade] {
                var all = trades
                all[id] = trade
                return all.values.filter { assets.contains($0.asset) }
            }

            mutating func revise(_ id: String, _ action: TradeRevision.Action, by: String, at: Date, requestId: String?, before: Trade?, after: Trade?) {
                revisions.append(TradeRevision(seq: revisions.count + 1, tradeId: id, action: action, by: by, at: at,
                                               requestId: requestId, before: before, after: after))
            }
        }
        let state = Mutex(State())
        return Self(
            addTrade: { request, id, now, by, check in
                try state.withLock { state in
                    if let first = state.answers[request.requestId] {
                        guard first.action == "add", let trade = first.trade else {
                            throw RequestReuse.error(request.requestId, first: first.action, now: "add")
                        }
                        return trade
                    }
                    let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                      currency: request.currency, fee: request.fee, date: request.date, recordedAt: now,
                                      portfolio: request.portfolio ?? Trade.mainPortfolio)
                    try check(state.after(id, trade, assets: [trade.asset]))
                    state.trades[id] = trade
                    state.answers[request.requestId] = ("add", trade)
                    state.revise(id, .added, by: by, at: now, requestId: request.requestId, before: nil, after: trade)
                    return trade
                }
            },
            editTrade: { request, now, by, check in
                try state.withLock { state in
                    let activity = request.activity
                    if let first = state.answers[activity.requestId] {
                        guard first.action == "edit", let trade = first.trade else {
                            throw RequestReuse.error(activity.requestId, first: first.action, now: "edit")
                        }
                        guard trade.id == request.id else { throw RequestReuse.error(activity.requestId, editOf: trade.id, now: request.id) }
                        return Written(trade, acted: false)
                    }
                    guard let before = state.trades[request.id] else { throw RPCError.notFound("no trade with id \(request.id)") }
                    let trade = Trade(id: request.id, kind: activity.kind, asset: activity.asset, amount: activity.amount, price: activity.price,
                                      currency: activity.currency, fee: activity.fee, date: activity.date, recordedAt: before.recordedAt,
                                      portfolio: activity.portfolio ?? before.portfolio)
                    try check(state.after(request.id, trade, assets: [before.asset, trade.asset]))
                    state.trades[request.id] = trade
                    state.answers[activity.requestId] = ("edit", trade)
                    state.revise(request.id, .edited, by: by, at: now, requestId: activity.requestId, before: before, after: trade)
                    return Written(trade, acted: true)
                }
            },
            removeTrade: { id, requestId, now, by, check in
                try state.withLock { state in
                    if let requestId, let first = state.answers[requestId] {
                        guard first.action == "remove" else { throw RequestReuse.error(requestId, first: first.action, now: "remove") }
                        return Written(true, acted: false)
                    }
                    guard let before = state.trades[id] else { return Written(false, acted: false) }
                    try check(state.after(id, nil, assets: [before.asset]))
                    state.trades[id] = nil
                    if let requestId { state.answers[requestId] = ("remove", nil) }
                    state.revise(id, .removed, by: by, at: now, requestId: requestId, before: before, after: nil)
                    return Written(true, acted: true)
                }
            },
            trades: { ActivityLedger.ordered(Array(state.withLock { $0.trades.values })) },
            tradeHistory: { id in state.withLock { state in state.revisions.filter { id == nil || $0.tradeId == id } } },
            watch: { asset, _ in
                state.withLock { state in
                    guard !state.watched.contains(asset) else { return false }
                    state.watched.append(asset)
                    return true
                }
            },
            unwatch: { asset in
                state.withLock { state in
                    guard let index = state.watched.firstIndex(of: asset) else { return false }
                    state.watched.remove(at: index)
                    return true
                }
            },
            watchlist: { state.withLock { $0.watched } },
            savePrices: { prices in
                state.withLock { state in
                    for price in prices { state.prices["\(price.asset)/\(price.currency)"] = price }
                }
            },
            prices: { state.withLock { $0.prices.values.sorted { ($0.asset, $0.currency) < ($1.asset, $1.currency) } } },
            saveDocument: { key, body in state.withLock { $0.documents[key] = body } },
            document: { key in state.withLock { $0.documents[key] } },
            seenRequests: { ids in state.withLock { state in Set(ids.filter { state.answers[$0] != nil }) } },
            addTrades: { requests, now, by, check in
                try state.withLock { state in
                    var next = state
                    var written: [Written<Trade>] = []
                    var assets: Set<String> = []
                    for (request, id) in requests {
                        if let first = next.answers[request.requestId] {
                            guard first.action == "add", let trade = first.trade else {
                                throw RequestReuse.error(request.requestId, first: first.action, now: "add")
                            }
                            written.append(Written(trade, acted: false))
                            continue
                        }
                        let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                          currency: request.currency, fee: request.fee, date: request.date, recordedAt: now,
                                          portfolio: request.portfolio ?? Trade.mainPortfolio)
                        next.trades[id] = trade
                        next.answers[request.requestId] = ("add", trade)
                        next.revise(id, .added, by: by, at: now, requestId: request.requestId, before: nil, after: trade)
                        assets.insert(trade.asset)
                        written.append(Written(trade, acted: true))
                    }
                    try check(next.trades.values.filter { assets.contains($0.asset) })
                    state = next
                    return written
                }
            })
    }
}
