import PresenterViews
import Foundation

/// Draws ``ChartData`` as an inline SVG line chart: axes, min/max guides and labels, date labels,
/// one path through every point (of `pathLength` 1, so the stylesheet draws it in whatever its length) and one
/// hoverable circle (with a `<title>`) per point.
///
/// This is the only place a price becomes a `Double`, and only for SVG pixel geometry: each price is read
/// from its exact decimal string (`DisplayAmount.raw`, an ExactDecimal's description) and each time from its
/// ISO string, to place a point on screen. Every figure a reader sees comes from the view's formatted text.
enum Chart {
    /// The drawing's width in SVG user units; it scales to the page's width.
    static let width = 720.0
    /// The drawing's height in SVG user units.
    static let height = 300.0
    /// The least room left of the plot; the price labels may need more (``left(for:)``).
    static let minimumLeft = 56.0
    /// The gap between a price label's end and the plot.
    static let labelGap = 8.0
    /// Room right of the plot.
    static let right = 16.0
    /// Room above the plot.
    static let top = 16.0
    /// Room below the plot, for the date labels.
    static let bottom = 40.0

    /// The SVG for `chart`; `title` names it for assistive technology.
    static func svg(_ chart: ChartData, title: String) -> String {
        let left = left(for: chart)
        let positions = place(chart, left: left)
        let plotRight = width - right
        let plotBottom = height - bottom
        let path = positions.enumerated().map { index, position in
            "\(index == 0 ? "M" : "L")\(coordinate(position.x)),\(coordinate(position.y))"
        }.joined(separator: " ")
        let circles = zip(chart.points, positions).map { point, position in
            let label = "\(point.label): \(point.price.text)"
            return "<circle class=\"point\" cx=\"\(coordinate(position.x))\" cy=\"\(coordinate(position.y))\" r=\"4\" tabindex=\"0\" "
                + "data-time=\"\(escapeHTML(point.time))\" data-raw=\"\(escapeHTML(point.price.raw))\" data-label=\"\(escapeHTML(label))\">"
                + "<title>\(escapeHTML(label))</title></circle>"
        }.joined()
        let middle = chart.points.isEmpty ? chart.first : chart.points[chart.points.count / 2]
        let join = chart.candlesFrom.flatMap { join in zip(chart.points, positions).first { $0.0 == join }.map { joinMark(join, x: $0.1.x, left: left) } }
        return """
            <svg id="price-chart" class="chart" viewBox="0 0 \(coordinate(width)) \(coordinate(height))" role="img" \
            aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg" data-points="\(chart.points.count)">
            <title id="chart-title">\(escapeHTML(title))</title>
            <line class="axis y-axis" x1="\(coordinate(left))" y1="\(coordinate(top))" x2="\(coordinate(left))" y2="\(coordinate(plotBottom))"/>
            <line class="axis x-axis" x1="\(coordinate(left))" y1="\(coordinate(plotBottom))" x2="\(coordinate(plotRight))" y2="\(coordinate(plotBottom))"/>
            <line class="guide max-guide" x1="\(coordinate(left))" y1="\(coordinate(top))" x2="\(coordinate(plotRight))" y2="\(coordinate(top))"/>
            <text class="y-label max-label" x="\(coordinate(left - 8))" y="\(coordinate(top + 4))" text-anchor="end">\(escapeHTML(chart.max.price.text))</text>
            <text class="y-label min-label" x="\(coordinate(left - 8))" y="\(coordinate(plotBottom))" text-anchor="end">\(escapeHTML(chart.min.price.text))</text>
            <text class="x-label first-label" x="\(coordinate(left))" y="\(coordinate(height - 14))" text-anchor="start">\(escapeHTML(chart.first.tick))</text>
            <text class="x-label middle-label" x="\(coordinate((left + plotRight) / 2))" y="\(coordinate(height - 14))" text-anchor="middle">\(escapeHTML(middle.tick))</text>
            <text class="x-label last-label" x="\(coordinate(plotRight))" y="\(coordinate(height - 14))" text-anchor="end">\(escapeHTML(chart.last.tick))</text>
            \(join ?? "")<path class="line" d="\(path)" pathLength="1"/>
            <g class="points">\(circles)</g>
            </svg>
            """
    }

    /// The mark of where candles follow the older history (a dashed vertical line, "candles →" beside it, right of the
    /// line in the plot's left half, left of it in its right half): recorded candles and a backfilled or mock history
    /// need not meet at one price, and the reader should see that a step there is where one series meets the other.
    private static func joinMark(_ join: ChartData.Point, x: Double, left: Double) -> String {
        let rightHalf = x > (left + width - right) / 2
        let label = "candles from \(join.label); before, price history"
        return "<line class=\"guide join-guide\" x1=\"\(coordinate(x))\" y1=\"\(coordinate(top))\" x2=\"\(coordinate(x))\" "
            + "y2=\"\(coordinate(height - bottom))\" data-time=\"\(escapeHTML(join.time))\"><title>\(escapeHTML(label))</title></line>"
            + "<text class=\"join-label\" x=\"\(coordinate(rightHalf ? x - 4 : x + 4))\" y=\"\(coordinate(top - 4))\" "
            + "text-anchor=\"\(rightHalf ? "end" : "start")\">candles →</text>"
    }

    /// Screen positions of the points: x by time (by order if a time cannot be read), y by price
    /// between the lowest (bottom) and highest (top); a flat history runs through the middle.
    private static func place(_ chart: ChartData, left: Double) -> [(x: Double, y: Double)] {
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let times = chart.points.compactMap { try? Date.ISO8601FormatStyle().parse($0.time).timeIntervalSince1970 }
        let prices = chart.points.map { Double($0.price.raw) ?? 0 }
        let low = Double(chart.min.price.raw) ?? 0
        let high = Double(chart.max.price.raw) ?? 0
        let count = chart.points.count
        let span = (times.last ?? 0) - (times.first ?? 0)
        let byTime = times.count == count && span > 0
        return prices.enumerated().map { index, price in
            let fraction = byTime ? (times[index] - times[0]) / span : (count > 1 ? Double(index) / Double(count - 1) : 0.5)
            let level = high > low ? (price - low) / (high - low) : 0.5
            return (left + fraction * plotWidth, top + (1 - level) * plotHeight)
        }
    }

    /// Room left of the plot for `chart`'s price labels: the longer one's ``labelWidth(_:)``, the gap and a margin, at
    /// least ``minimumLeft``, so a long label (MX$1,287,300.00, 1.287.300,00 MX$) is never cut at the drawing's edge.
    static func left(for chart: ChartData) -> Double {
        let longest = [chart.max.price.text, chart.min.price.text].map(labelWidth).max() ?? 0
        return max(minimumLeft, (longest + labelGap + 4).rounded(.up))
    }

    /// The width of `text` in SVG units at the stylesheet's 12-unit chart labels, over-estimated from generous widths
    /// per character (those of DejaVu Sans, wider than most sans fonts): the server cannot measure the reader's font.
    static func labelWidth(_ text: String) -> Double {
        let ems = text.unicodeScalars.reduce(0.0) { sum, scalar in
            switch scalar {
            case ",", ".", ":", "'", " ", "\u{A0}", "\u{202F}", "\u{2009}": sum + 0.34
            case "M", "W", "m", "w": sum + 0.92
            case "A"..."Z": sum + 0.78
            case "a"..."z": sum + 0.62
            default: sum + 0.66
            }
        }
        return ems * 12
    }

    /// A coordinate with one decimal, "123.4", independent of any locale.
    private static func coordinate(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
