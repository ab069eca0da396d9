import AsyncHTTPClient
import Foundation
import Logging
import Market
import NIOCore

/// Bitso's public market data as a feed needs it: the websocket (`diff-orders`, `trades`) and the REST order book
/// that seeds each book.
public struct BitsoStreamClient: Sendable {
    /// Opens the websocket.
    public var connect: @Sendable () -> WebSocketConnection
    /// The whole order book of `book` (e.g. `btc_mxn`), every order with its id, and the sequence it stands at.
    public var orderBook: @Sendable (_ book: String) async throws -> BitsoOrderBook

    /// A client of its closures.
    public init(
        connect: @escaping @Sendable () -> WebSocketConnection,
        orderBook: @escaping @Sendable (_ book: String) async throws -> BitsoOrderBook
    ) {
        self.connect = connect
        self.orderBook = orderBook
    }
}

/// A REST answer that was not a 200.
public struct HTTPStatusError: Error, CustomStringConvertible {
    /// The URL asked.
    public var url: String
    /// Its status code.
    public var status: UInt

    public var description: String { "GET \(url) answered HTTP \(status)" }
}

extension BitsoStreamClient {
    /// Bitso's websocket.
    public static let websocketURL = "wss://ws.bitso.com"
    /// Bitso's REST API.
    public static let restURL = "https://api.bitso.com"

    /// The real Bitso: a websocket to `websocketURL` and `GET <restURL>/v3/order_book/?book=...&aggregate=false`.
    public static func live(http: HTTPClient, websocketURL: String = websocketURL, restURL: String = restURL, logger: Logger) -> Self {
        Self(
            connect: { WebSocketConnection.open(url: websocketURL, logger: logger) },
            orderBook: { book in
                let url = "\(restURL)/v3/order_book/?book=\(book)&aggregate=false"
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await http.execute(request, timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 64 << 20)
                guard response.status == .ok else { throw HTTPStatusError(url: url, status: response.status.code) }
                return try BitsoOrderBook.parse(Data(buffer: body))
            })
    }

    /// A recorded session: the websocket at `url` (a ``ReplayServer`` playing `Fixtures/bitso/session.jsonl`), and
    /// the recorded REST order book of btc_mxn (`Fixtures/bitso/order_book_btc_mxn.json`) for every book.
    public static func test(url: String, logger: Logger) -> Self {
        Self(
            connect: { WebSocketConnection.open(url: url, logger: logger) },
            orderBook: { _ in try BitsoOrderBook.parse(try ExchangeFixtures.data("bitso/order_book_btc_mxn.json")) })
    }

    /// A synthetic Bitso in process: each subscribed book walks around its reference price (`MockMarket`), a
    /// change every `interval`, as numbered diffs and trades; its REST book is the mock's own, so they agree.
    public static func mock(seed: UInt64 = 42, interval: Duration = .milliseconds(250)) -> Self {
        let exchange = BitsoMockExchange(seed: seed)
        return Self(
            connect: { MockSocket.open(interval: interval, receive: exchange.received, step: exchange.step) },
            orderBook: { book in try exchange.orderBook(book) })
    }

    /// Every closure fails (a connection that throws at once), naming itself.
    public static let failing = Self(
        connect: { MockSocket.failing("BitsoStreamClient.connect") },
        orderBook: { _ in throw Unimplemented("BitsoStreamClient.orderBook") })
}
