import PresenterViews
extension Pages {
    /// The GNB products (`tr.product-row[data-sku]`), each linking to its detail.
    public static func products(_ view: ProductsView, context: PageContext) -> String {
        let rows = view.rows.map { row in
            """
            <tr class="product-row" data-sku="\(escapeHTML(row.sku))">\
            <td><a href="\(escapeHTML(context.href(page: "/products/\(row.sku)")))">\(escapeHTML(row.sku))</a></td>\
            <td class="num">\(row.transactions)</td></tr>
            """
        }
        let body = """
            <table id="products"><thead><tr><th>SKU</th><th class="num">Transactions</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Layout.document(title: "Products", context: context, notices: view.notices, dataAge: view.dataAge, body: body)
    }

    /// One product: its transactions (`tr.transaction-row`) with original and converted amounts and the rate
    /// path, and the total in `#total`.
    public static func product(_ view: ProductView, context: PageContext) -> String {
        let rows = view.transactions.map { row in
            """
            <tr class="transaction-row" data-currency="\(escapeHTML(row.original.currency ?? ""))">\
            \(HTML.amountCell(row.original, classes: "num original"))\(HTML.amountCell(row.converted, classes: "num converted"))\
            <td class="path">\(escapeHTML(row.pathText))</td></tr>
            """
        }
        let currency = escapeHTML(view.currency ?? "")
        let body = """
            <p>Total: <span id="total" data-raw="\(escapeHTML(view.total.raw))" data-currency="\(currency)">\(escapeHTML(view.total.text))</span></p>
            <table id="transactions"><thead><tr><th class="num">Amount</th><th class="num">In \(currency)</th><th>Rate path</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            <p><a href="\(escapeHTML(context.href(page: "/products")))">All products</a></p>
            """
        return Layout.document(title: "Product \(view.sku)", context: context, notices: view.notices, dataAge: view.dataAge, body: body)
    }
}
