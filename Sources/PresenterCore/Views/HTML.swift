import PresenterViews
/// `text` safe to put between tags or inside a quoted attribute: `& < > " '` become character references.
public func escapeHTML(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}

/// Markup helpers shared by the pages.
enum HTML {
    /// An icon that switches to its dark variant in dark mode.
    static func icon(light: String, dark: String, alt: String, size: Int = 28) -> String {
        """
        <picture class="icon"><source media="(prefers-color-scheme: dark)" srcset="\(escapeHTML(dark))">\
        <img src="\(escapeHTML(light))" alt="\(escapeHTML(alt))" width="\(size)" height="\(size)" loading="lazy"></picture>
        """
    }

    /// The icon of `symbol` as the presenter serves it (``IconPath``), switching to the dark one in dark mode.
    static func icon(symbol: String, size: Int = 28) -> String {
        icon(light: IconPath.light(symbol), dark: IconPath.dark(symbol), alt: symbol, size: size)
    }

    /// A table cell for an amount, carrying its exact value in `data-raw`; "—" when there is none.
    static func amountCell(_ amount: DisplayAmount?, classes: String = "num", attributes: String = "") -> String {
        guard let amount else { return "<td class=\"\(classes) missing\"\(attributes)>—</td>" }
        return "<td class=\"\(classes)\" data-raw=\"\(escapeHTML(amount.raw))\"\(attributes)>\(escapeHTML(amount.text))</td>"
    }

    /// A `<dt>`/`<dd>` pair for a figure of a detail page; nothing when there is no amount.
    static func figure(_ label: String, _ amount: DisplayAmount?, id: String) -> String {
        guard let amount else { return "" }
        return "<dt>\(escapeHTML(label))</dt><dd id=\"\(id)\" data-raw=\"\(escapeHTML(amount.raw))\">\(escapeHTML(amount.text))</dd>"
    }

    /// The CSS class of a trend, for colouring.
    static func trendClass(_ trend: Trend?) -> String {
        trend?.rawValue ?? "flat"
    }
}
