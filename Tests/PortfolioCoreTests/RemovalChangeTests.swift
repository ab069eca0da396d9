import BusContract
import Foundation
import PortfolioEngine
import Testing
import TickwireContract

@Suite("trade.removed is announced once the activity is removed")
struct RemovalChangeTests {
    /// A removal whose history cannot be read afterwards (the store failing just then) is still answered true and
    /// announced, without its portfolio; the activity is gone.
    @Test func aRemovalWhoseHistoryCannotBeReadIsStillAnnounced() async throws {
        var store = PortfolioStore.memory()
        store.tradeHistory = { _ in throw RPCError.unavailable("the history cannot be read now") }
        let portfolio = try await TwoPortfolios(store: store)
        let buy = try await portfolio.client.addTrade(AddTradeRequest(
            asset: "BTC", amount: 1, price: 100, currency: "USD", date: now.addingTimeInterval(-86_400), requestId: "b1", portfolio: "Pension"))
        #expect(try await portfolio.client.removeTrade(RemoveTradeRequest(id: buy.id)))
        var changes = portfolio.changes.makeAsyncIterator()
        #expect(await changes.next() == PortfolioChange(reason: "trade.added", subject: buy.id, portfolio: "Pension"))
        #expect(await changes.next() == PortfolioChange(reason: "trade.removed", subject: buy.id, portfolio: nil))
        #expect(try await portfolio.client.trades(TradesRequest(portfolio: "Pension")).isEmpty)
    }

    /// With its history readable, the removal names the portfolio the activity was in.
    @Test func aRemovalNamesItsPortfolio() async throws {
        let portfolio = try await TwoPortfolios()
        let buy = try await portfolio.client.addTrade(AddTradeRequest(
            asset: "BTC", amount: 1, price: 100, currency: "USD", date: now.addingTimeInterval(-86_400), requestId: "b1", portfolio: "Pension"))
        #expect(try await portfolio.client.removeTrade(RemoveTradeRequest(id: buy.id)))
        var changes = portfolio.changes.makeAsyncIterator()
        _ = await changes.next()
        #expect(await changes.next() == PortfolioChange(reason: "trade.removed", subject: buy.id, portfolio: "Pension"))
    }
}
