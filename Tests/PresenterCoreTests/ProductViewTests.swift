import PresenterViews
import Foundation
import TickwireContract
import Testing
@testable import PresenterCore

struct ProductViewTests {
    /// T2006's total is 14.99 EUR, each transaction shown as sold and converted, with its rate path.
    @Test func t2006Total() throws {
        let view = ProductView.make(detail: try SampleData.productT2006(), context: SampleData.context("de_AT"))
        #expect(view.total == DisplayAmount(raw: "14.99", text: "14,99\u{A0}€", currency: "EUR"))
        #expect(view.transactions.map(\.original.text) == ["10,00\u{A0}$", "7,63\u{A0}€"])
        #expect(view.transactions.map(\.converted.text) == ["7,36\u{A0}€", "7,63\u{A0}€"])
        #expect(view.transactions.map(\.pathText) == ["USD → EUR", "—"])
        #expect(view.currency == "EUR")
    }

    /// The product list keeps each SKU and its count.
    @Test func products() {
        let view = ProductsView.make(products: [ProductSummary(sku: "T2006", transactions: 2), ProductSummary(sku: "M2007", transactions: 1)], context: SampleData.context())
        #expect(view.rows.map(\.sku) == ["T2006", "M2007"])
        #expect(view.rows.map(\.transactions) == [2, 1])
        #expect(view.currency == "EUR")
    }
}
