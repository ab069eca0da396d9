import PortfolioEngine
import Bus
import Foundation
import TickwireContract
import Money
import PortfolioCore
import Testing
import BusContract

@Suite("Trade validation")
struct ValidationTests {
    private let known: Set<String> = ["BTC", "ETH"]

    private func validate(_ request: AddTradeRequest, known: Set<String>? = nil) throws -> AddTradeRequest {
        try TradeValidation.validate(request, knownAssets: known ?? self.known, now: now)
    }

    /// A valid trade passes with its asset and currency upper-cased and everything else unchanged.
    @Test func validTradePassesUpperCased() throws {
        let request = try tradeRequest("btc", amount: "0.5", price: "0", currency: "usd", date: now.addingTimeInterval(60), requestId: " r1 ")
        let valid = try validate(request)
        #expect(valid.asset == "BTC")
        #expect(valid.currency == "USD")
        #expect(valid.amount == (try dec("0.5")))
        #expect(valid.price == .zero)
        #expect(valid.date == request.date)
        #expect(valid.requestId == " r1 ")
    }

    /// An asset the portfolio does not know is refused, and the message says why.
    @Test func unknownAsset() throws {
        let error = #expect(throws: RPCError.self) { try validate(try tradeRequest("DOGE", amount: "1", price: "1", requestId: "r")) }
        #expect(error?.code == -32602)
        #expect(error?.message == "invalid params: unknown asset DOGE")
        let empty = #expect(throws: RPCError.self) { try validate(try tradeRequest("BTC", amount: "1", price: "1", requestId: "r"), known: []) }
        #expect(empty?.message.contains("no assets are known yet") == true)
    }

    /// Zero and negative amounts are refused.
    @Test(arguments: ["0", "-0.5", "0.00"])
    func nonPositiveAmount(amount: String) throws {
        let error = #expect(throws: RPCError.self) { try validate(try tradeRequest("BTC", amount: amount, price: "1", requestId: "r")) }
        #expect(error?.code == -32602)
        #expect(error?.message == "invalid params: amount must be positive, got \(amount)")
    }

    /// A negative price is refused.
    @Test func negativePrice() throws {
        let error = #expect(throws: RPCError.self) { try validate(try tradeRequest("BTC", amount: "1", price: "-0.01", requestId: "r")) }
        #expect(error?.message == "invalid params: price must not be negative, got -0.01")
    }

    /// A date more than the allowed clock skew (60 s) ahead is refused; exactly 60 s ahead passes.
    @Test func futureDate() throws {
        let ahead = now.addingTimeInterval(TradeValidation.clockSkew + 1)
        let error = #expect(throws: RPCError.self) { try validate(try tradeRequest("BTC", amount: "1", price: "1", date: ahead, requestId: "r")) }
        #expect(error?.code == -32602)
        #expect(error?.message == "invalid params: date \(Wire.format(ahead)) is in the future")
        #expect(throws: Never.self) { try validate(try tradeRequest("BTC", amount: "1", price: "1", date: now.addingTimeInterval(60), requestId: "r")) }
    }

    /// An empty, blank or over-long requestId is refused.
    @Test(arguments: ["", "   ", String(repeating: "x", count: 201)])
    func badRequestId(requestId: String) throws {
        let error = #expect(throws: RPCError.self) { try validate(try tradeRequest("BTC", amount: "1", price: "1", requestId: requestId)) }
        #expect(error?.message == "invalid params: requestId must be 1 to 200 characters")
    }

    /// A malformed currency code is refused as such.
    @Test func badCurrencyCode() throws {
        #expect(throws: MoneyError.invalidCurrencyCode("US$")) {
            try validate(try tradeRequest("BTC", amount: "1", price: "1", currency: "US$", requestId: "r"))
        }
    }
}
