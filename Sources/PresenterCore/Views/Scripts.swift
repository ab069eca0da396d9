import PresenterViews
/// The pages' small scripts, served as files under `/static/` (the Content-Security-Policy allows no
/// inline script): no build step. A page passes a script its parameters in `data-` attributes of the
/// `<script>` element, which the script reads from `document.currentScript`.
enum Scripts {
    /// The scripts by file name, as `/static/<name>` serves them.
    static let files: [String: String] = [
        "live-prices.js": livePrices, "live-alerts.js": liveAlerts, "trade-price.js": tradePrice, "chart-readout.js": chartReadout,
    ]

    /// The `<script>` element that loads `/static/<name>`, with `data-` attributes (escaped) for its parameters.
    static func tag(_ name: String, data: [(String, String)] = []) -> String {
        let attributes = data.map { " data-\($0.0)=\"\(escapeHTML($0.1))\"" }.joined()
        return "<script src=\"/static/\(name)\"\(attributes)></script>"
    }

    /// Live prices: listens to `/events?currency=…` (Server-Sent Events) and writes each update into the
    /// cells marked `data-price-for="SYMBOL"` (price text and `data-raw`) and `data-change-for="SYMBOL"`
    /// (change text and its up/down/flat class). Updates in another currency are ignored.
    /// Its parameter: `data-currency`.
    static let livePrices = """
        (function () {
          var status = document.getElementById("live-status");
          if (!("EventSource" in window)) { if (status) status.textContent = "live prices unavailable"; return; }
          var currency = document.currentScript.getAttribute("data-currency");
          var source = new EventSource("/events?currency=" + encodeURIComponent(currency));
          source.onopen = function () { if (status) status.textContent = "live"; };
          source.onerror = function () { if (status) status.textContent = "reconnecting…"; };
          source.onmessage = function (event) {
            var update;
            try { update = JSON.parse(event.data); } catch (e) { return; }
            if (!update || update.currency !== currency || typeof update.asset !== "string") return;
            var key = window.CSS && CSS.escape ? CSS.escape(update.asset) : update.asset.replace(/[^A-Za-z0-9_-]/g, "");
            document.querySelectorAll('[data-price-for="' + key + '"]').forEach(function (cell) {
              cell.textContent = update.text;
              cell.setAttribute("data-raw", update.raw);
              cell.classList.remove("missing");
            });
            if (typeof update.change !== "string") return;
            var sign = update.change.charAt(0);
            var trend = sign === "+" ? "up" : (sign === "-" || sign === "\\u2212" ? "down" : "flat");
            document.querySelectorAll('[data-change-for="' + key + '"]').forEach(function (cell) {
              cell.textContent = update.change;
              cell.setAttribute("data-raw", update.changeRaw);
              cell.classList.remove("up", "down", "flat", "missing");
              cell.classList.add(trend);
            });
          };
        })();
        """

    /// Live alerts: listens to the `alert` events of `/events` and adds each to the top of `#fired`.
    /// Its parameter: `data-currency`.
    static let liveAlerts = """
        (function () {
          var status = document.getElementById("live-status");
          var table = document.querySelector("#fired tbody");
          var currency = document.currentScript.getAttribute("data-currency");
          if (!("EventSource" in window) || !table) { if (status) status.textContent = "live alerts unavailable"; return; }
          var source = new EventSource("/events?currency=" + encodeURIComponent(currency));
          source.onopen = function () { if (status) status.textContent = "live"; };
          source.onerror = function () { if (status) status.textContent = "reconnecting…"; };
          source.addEventListener("alert", function (event) {
            var alert;
            try { alert = JSON.parse(event.data); } catch (e) { return; }
            var row = document.createElement("tr");
            row.className = "alert-row";
            row.setAttribute("data-rule", alert.ruleId);
            [alert.firedAtText, alert.asset, alert.condition, alert.threshold.text, alert.price.text].forEach(function (text, index) {
              var cell = document.createElement("td");
              if (index > 2) cell.className = "num";
              cell.textContent = text;
              row.appendChild(cell);
            });
            table.insertBefore(row, table.firstChild);
          });
        })();
        """

    /// The trade form's suggested price follows the currency chosen: the selected option's `data-price`.
    static let tradePrice = """
        (function () {
          var form = document.getElementById("trade-form");
          if (!form) { return; }
          var select = form.querySelector("select[name=currency]");
          var price = form.querySelector("input[name=price]");
          function suggest() {
            var option = select.options[select.selectedIndex];
            price.placeholder = (option && option.getAttribute("data-price")) || "";
          }
          select.addEventListener("change", suggest);
          suggest();
        })();
        """

    /// The chart read-out: hovering or focusing a point shows its date and price under the chart.
    static let chartReadout = """
        (function () {
          var readout = document.getElementById("chart-readout");
          if (!readout) return;
          document.querySelectorAll("#price-chart .point").forEach(function (point) {
            var show = function () { readout.textContent = point.getAttribute("data-label"); };
            point.addEventListener("mouseenter", show);
            point.addEventListener("focus", show);
          });
        })();
        """
}
