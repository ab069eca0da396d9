import Foundation
import Market
import PresenterViews
import Testing
@testable import PresenterCore

/// The dashboard's animations, in its stylesheet and scripts (issue 35): a changed price flashes up or down, rows
/// ease in and out, the chart's line draws in; all off under reduced motion. Chromium runs them in
/// WaitingPagesBrowserTests.
@Suite("Animations")
struct AnimationsTests {
    /// Each animation is a class with its keyframes; reduced motion turns every animation and transition off.
    @Test func theStylesheetAnimatesAndRespectsReducedMotion() throws {
        let css = Stylesheet.css
        for (selector, keyframes) in [(".flash-up", "flash-up"), (".flash-down", "flash-down"), (".row-enter", "row-enter"),
                                      (".row-leave", "row-leave"), (".chart .line", "draw-line"), (".pulse", "pulse")] {
            let rule = try #require(css.range(of: "\(selector) {"), "\(selector) has a rule")
            let body = css[rule.upperBound...].prefix { $0 != "}" }
            #expect(body.contains("animation: \(keyframes) "), "\(selector) runs \(keyframes)")
            #expect(css.contains("@keyframes \(keyframes) {"), "\(keyframes) is defined")
        }
        let reduced = try #require(css.range(of: "@media (prefers-reduced-motion: reduce) {"))
        #expect(css[reduced.upperBound...].hasPrefix("\n  *, *::before, *::after { animation: none !important; transition: none !important; }"))
        #expect(css.contains("--flash-up: rgba(19, 115, 51, .13)") && css.contains("--flash-down: rgba(255, 122, 112, .18)"),
                "green up and red down, in light and dark mode")
    }

    /// The chart's line has a path length of 1, so one dash of length 1 draws it whatever its length on screen.
    @Test func theChartLineCanDrawIn() throws {
        let points = [PricePoint(time: SampleData.now, price: 1), PricePoint(time: SampleData.now.addingTimeInterval(86_400), price: 2)]
        let chart = try #require(ChartData.make(history: PriceHistory(asset: "BTC", currency: "USD", points: points), locale: "en_US"))
        let svg = Chart.svg(chart, title: "BTC")
        #expect(svg.contains("<path class=\"line\" d=\"M56.0,260.0 L704.0,16.0\" pathLength=\"1\"/>"))
        #expect(Stylesheet.css.contains("stroke-dasharray: 1 1; stroke-dashoffset: 0;"), "drawn when the animation is off")
    }

    /// Live prices, and figures a page's update changes, flash by the direction of an exact decimal comparison;
    /// the page script marks rows that arrive or leave, and skips waiting for them to
    /// leave under reduced motion.
    @Test func theScriptsSetTheClasses() throws {
        #expect(Scripts.livePrices.contains("window.Tickwire.flash(cell, cell.getAttribute(\"data-raw\"), update.raw);"))
        #expect(Scripts.live.contains("element.classList.add(direction > 0 ? \"flash-up\" : \"flash-down\");"))
        #expect(!Scripts.live.contains("parseFloat") && !Scripts.live.contains("Number("), "no binary float")
        #expect(Scripts.live.contains("after[key].classList.add(\"row-enter\")") && Scripts.live.contains("row.classList.add(\"row-leave\")"))
        #expect(Scripts.live.contains("if (leaving.length && !reduced.matches)"))
        #expect(Scripts.files["live.js"] == Scripts.live)
    }
}
