import PortfolioEngine
import Foundation
import TickwireContract
import Money
import GRDB
@testable import PortfolioCore
import Testing

/// An exact decimal from its text, so expected values read as they would be written by hand.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A fixed moment (whole seconds, so it survives the wire's millisecond dates unchanged).
let now = Date(timeIntervalSince1970: 1_765_000_000)

/// The two ways a portfolio is stored.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory, file

    var testDescription: String { rawValue }
}

/// A fresh store of `kind`, with the file's path (nil in memory) for reopening.
func makeStore(_ kind: StoreKind) throws -> (store: PortfolioStore, path: String?) {
    switch kind {
    case .inMemory:
        return (try .inMemory(), nil)
    case .file:
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tickwire-portfolio-\(UUID().uuidString)/portfolio.sqlite").path
        return (try .live(path: path), path)
    }
}

/// Removes a file store's folder.
func removeStore(at path: String?) {
    guard let path else { return }
    try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
}

/// A trade request for `asset` with amount and price as text.
func tradeRequest(
    _ asset: String, amount: String, price: String, currency: String = "USD",
    date: Date = now.addingTimeInterval(-86_400), requestId: String
) throws -> AddTradeRequest {
    AddTradeRequest(asset: asset, amount: try dec(amount), price: try dec(price), currency: currency, date: date, requestId: requestId)
}

extension PortfolioStore {
    /// Adds `request` as `id` by "tester", with no holdings check.
    func add(_ request: AddTradeRequest, _ id: String, _ now: Date) async throws -> Trade {
        try await addTrade(request, id, now, "tester") { _ in }
    }

    /// Removes trade `id` by "tester", with no holdings check.
    func remove(_ id: String, requestId: String? = nil) async throws -> Bool {
        try await removeTrade(id, requestId, now, "tester") { _ in }.value
    }
}

/// A new SQLite file (its path, and the queue it is open in) with the store's own schema only up to `migration`: a database
/// an older portfolio wrote, to fill by hand, close and open with the store.
func oldDatabase(upTo migration: String) throws -> (path: String, queue: DatabaseQueue) {
    try #require(PortfolioStore.migrator.migrations.contains(migration))
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-portfolio-\(UUID().uuidString)/portfolio.sqlite").path
    try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
    let queue = try DatabaseQueue(path: path)
    try PortfolioStore.migrator.migrate(queue, upTo: migration)
    return (path, queue)
}
