import Foundation
import Synchronization
import TickwireContract

extension PortfolioStore {
    /// A store that keeps everything in memory, with the SQLite store's rules: a request id answers its
    /// first trade again, trades come ordered by date, the watch list in the order assets were added.
    /// What mocks and in-process tests use; nothing survives the process.
    public static func memory() -> Self {
        struct State {
            var trades: [String: Trade] = [:]
            var answers: [String: Trade] = [:]
            var watched: [String] = []
            var prices: [String: StoredPrice] = [:]
            var documents: [String: Data] = [:]
        }
        let state = Mutex(State())
        return Self(
            addTrade: { request, id, now in
                state.withLock { state in
                    if let first = state.answers[request.requestId] { return first }
                    let trade = Trade(id: id, asset: request.asset, amount: request.amount, price: request.price,
                                      currency: request.currency, date: request.date, recordedAt: now)
                    state.trades[id] = trade
                    state.answers[request.requestId] = trade
                    return trade
                }
            },
            removeTrade: { id in state.withLock { $0.trades.removeValue(forKey: id) != nil } },
            trades: {
                state.withLock { state in
                    state.trades.values.sorted { ($0.date, $0.recordedAt, $0.id) < ($1.date, $1.recordedAt, $1.id) }
                }
            },
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
            document: { key in state.withLock { $0.documents[key] } })
    }
}
