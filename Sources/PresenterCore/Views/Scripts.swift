import PresenterViews
/// The pages' small scripts, served as files under `/static/` (the Content-Security-Policy allows no
/// inline script): no build step. A page passes a script its parameters in `data-` attributes of the
/// `<script>` element, which the script reads from `document.currentScript`.
enum Scripts {
    /// The scripts by file name, as `/static/<name>` serves them.
    static let files: [String: String] = [
        "live.js": live, "live-prices.js": livePrices, "confirm-forms.js": confirmForms, "trade-price.js": tradePrice,
        "chart-readout.js": chartReadout, "import-file.js": importFile, "depth-ladder.js": depthLadder,
    ]

    /// The `<script>` element that loads `/static/<name>`, with `data-` attributes (escaped) for its parameters.
    static func tag(_ name: String, data: [(String, String)] = []) -> String {
        let attributes = data.map { " data-\($0.0)=\"\(escapeHTML($0.1))\"" }.joined()
        return "<script src=\"/static/\(name)\"\(attributes)></script>"
    }

    /// The page kept live, on every page (``Layout/liveScript(_:)``): one connection to `/events` for all of the page's
    /// scripts, which take its events with `Tickwire.on(type, handler)` (`message`: a price, `changed`), each
    /// handler given the event's JSON. A page that waits for its data (`#waiting`) or could not be built (`#error`)
    /// fetches itself again on every change and every 5 s; a complete page on the kinds of change in `data-refresh-on`
    /// and every `data-refresh-every` seconds, but not while the reader is filling in one of its forms. The fetched
    /// page's `main` and data-age footer replace the shown ones in place, without a reload: rows that arrive get
    /// `row-enter`, rows that leave `row-leave` first (keyed by their `data-` id), a figure whose `data-raw` changed
    /// flashes (`Tickwire.flash`: `flash-up` or `flash-down`, compared exactly as decimal strings), and scripts the new
    /// content needs are loaded. It marks the document with `data-page-id` once at load and counts the updates in
    /// `data-live-updates`. A refresh for a change that came in a trace (a trade's `traceparent` and `tracestate` in the
    /// `changed` event) sends them as headers, so the page's fetch goes on in that trace. A change of one portfolio (kind
    /// `portfolio:<name>`) counts as `portfolio` on every page but one that shows a portfolio (`data-portfolio`), which fetches
    /// itself again only for its own. Its parameters: `data-currency`, `data-locale`, `data-prices` (0: no price events),
    /// `data-refresh-on`, `data-refresh-every`, `data-portfolio`. It closes its connection when the page is left (`pagehide`) and
    /// connects again when the page is shown from the back-forward cache.
    static let live = """
        (function () {
          var script = document.currentScript;
          var root = document.documentElement;
          var param = function (name) { return script.getAttribute("data-" + name) || ""; };
          var refreshOn = param("refresh-on").split(" ").filter(Boolean);
          var every = parseInt(param("refresh-every"), 10) || 0;
          var portfolio = script.hasAttribute("data-portfolio") ? param("portfolio") : null;
          function wanted(kind) {
            if (kind.indexOf("portfolio:") === 0) {
              if (portfolio !== null) return kind === "portfolio:" + portfolio;
              kind = "portfolio";
            }
            return refreshOn.indexOf(kind) >= 0;
          }
          var reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
          var handlers = {}, source = null, updates = 0, connection = "";
          root.setAttribute("data-page-id", Date.now().toString(36) + Math.random().toString(36).slice(2, 8));
          root.setAttribute("data-live-updates", "0");
          function status(text) {
            connection = text;
            var element = document.getElementById("live-status");
            if (element && text) element.textContent = text;
          }
          function listen(type) {
            source.addEventListener(type, function (event) {
              var data;
              try { data = JSON.parse(event.data); } catch (e) { return; }
              (handlers[type] || []).forEach(function (handler) { handler(data); });
            });
          }
          window.Tickwire = {
            on: function (type, handler) {
              if (!handlers[type]) { handlers[type] = []; if (source) listen(type); }
              handlers[type].push(handler);
            },
            refresh: refresh
          };

          function parts(decimal) {
            var negative = decimal.charAt(0) === "-", digits = negative ? decimal.slice(1) : decimal;
            var split = digits.split(".");
            return { sign: negative ? -1 : 1, whole: split[0].replace(/^0+/, ""), fraction: split[1] || "" };
          }
          function compare(a, b) {
            var x = parts(a), y = parts(b);
            if (x.sign !== y.sign) return x.sign;
            var order = x.whole.length !== y.whole.length ? (x.whole.length > y.whole.length ? 1 : -1)
              : (x.whole > y.whole ? 1 : (x.whole < y.whole ? -1 : 0));
            if (order === 0) {
              var length = Math.max(x.fraction.length, y.fraction.length);
              var f = x.fraction.padEnd(length, "0"), g = y.fraction.padEnd(length, "0");
              order = f > g ? 1 : (f < g ? -1 : 0);
            }
            return x.sign * order;
          }
          window.Tickwire.flash = function (element, before, after) {
            if (before === null || after === null || before === after) return;
            var direction = compare(after, before);
            if (direction === 0) return;
            element.classList.remove("flash-up", "flash-down");
            void element.offsetWidth;
            element.classList.add(direction > 0 ? "flash-up" : "flash-down");
          };

          var keys = ["data-trade-id", "data-wallet-id", "data-sku", "data-book", "data-asset", "data-symbol", "data-row"];
          function keyOf(row) {
            for (var i = 0; i < keys.length; i++) { if (row.hasAttribute(keys[i])) return keys[i] + "=" + row.getAttribute(keys[i]); }
            return null;
          }
          function rows(container) {
            var found = {};
            container.querySelectorAll("tr, li").forEach(function (row) {
              var key = keyOf(row), list = row.parentElement && row.parentElement.closest("[id]");
              if (key) found[(list ? list.id : "") + " " + key] = row;
            });
            return found;
          }
          function values(container) {
            var found = {};
            container.querySelectorAll("[data-raw]").forEach(function (element) {
              if (element.closest("svg")) return;
              var row = element.closest("tr, li"), key = row && keyOf(row);
              var classes = (element.getAttribute("class") || "").replace(/\\b(flash-up|flash-down|up|down|flat|missing)\\b/g, "");
              var name = element.id || classes.trim();
              found[(key || "") + " " + name] = element;
            });
            return found;
          }
          function comparable(html) { return html.replace(/name="requestId" value="[^"]*"/g, ""); }
          var shown = comparable(document.querySelector("main").innerHTML);
          function loadScripts(page) {
            page.querySelectorAll("script[src]").forEach(function (original) {
              var src = original.getAttribute("src");
              if (document.querySelector('script[src="' + src + '"]')) return;
              var copy = document.createElement("script");
              Array.prototype.forEach.call(original.attributes, function (attribute) { copy.setAttribute(attribute.name, attribute.value); });
              copy.async = false;
              document.body.appendChild(copy);
            });
          }
          function swap(page) {
            var main = document.querySelector("main"), next = page.querySelector("main");
            if (!main || !next || comparable(next.innerHTML) === shown) return;
            shown = comparable(next.innerHTML);
            var before = rows(main), after = rows(next), shownValues = values(main);
            Object.keys(after).forEach(function (key) { if (!before[key]) after[key].classList.add("row-enter"); });
            var leaving = Object.keys(before).filter(function (key) { return !after[key]; }).map(function (key) { return before[key]; });
            function apply() {
              main.innerHTML = next.innerHTML;
              var fresh = values(main);
              Object.keys(fresh).forEach(function (key) {
                if (shownValues[key]) window.Tickwire.flash(fresh[key], shownValues[key].getAttribute("data-raw"), fresh[key].getAttribute("data-raw"));
              });
              var footer = document.getElementById("data-age"), age = page.getElementById("data-age");
              if (footer && age) footer.outerHTML = age.outerHTML;
              document.title = page.title;
              status(connection);
              loadScripts(page);
              updates += 1;
              root.setAttribute("data-live-updates", String(updates));
            }
            if (leaving.length && !reduced.matches) {
              leaving.forEach(function (row) { row.classList.add("row-leave"); });
              setTimeout(apply, 300);
            } else {
              apply();
            }
          }
          function editing() {
            var fields = document.querySelectorAll("main input:not([type=hidden]), main select, main textarea");
            return Array.prototype.some.call(fields, function (field) {
              return field === document.activeElement || (field.value !== undefined && field.defaultValue !== undefined && field.value !== field.defaultValue);
            });
          }
          // One refresh at a time and at most one waiting: changes while a form is being filled in, or while a fetch
          // is under way, fold into the one already pending.
          // The trace of the change a refresh is for, if it came in one: sent once, with the next fetch.
          var busy = false, again = false, pending = false, trace = null;
          function later(delay) {
            if (pending) return;
            pending = true;
            setTimeout(function () { pending = false; refresh(); }, delay);
          }
          function refresh() {
            if (busy) { again = true; return; }
            if (editing()) { later(2000); return; }
            busy = true;
            var headers = { Accept: "text/html" };
            if (trace) {
              headers.traceparent = trace.traceparent;
              if (trace.tracestate) headers.tracestate = trace.tracestate;
              trace = null;
            }
            fetch(location.href, { headers: headers, credentials: "same-origin", cache: "no-store" })
              .then(function (response) { return response.text(); })
              // Unreachable for now: the next change or tick tries again.
              .then(function (html) { swap(new DOMParser().parseFromString(html, "text/html")); }, function () {})
              .catch(function (error) { console.error("the live update failed", error); })
              .then(function () {
                busy = false;
                if (again) { again = false; later(1000); }
              });
          }
          function incomplete() { return !!(document.getElementById("waiting") || document.getElementById("error")); }

          window.Tickwire.on("changed", function (change) {
            if (!(incomplete() || (!change.initial && change.kinds.some(wanted)))) return;
            if (typeof change.traceparent === "string") trace = { traceparent: change.traceparent, tracestate: change.tracestate };
            refresh();
          });
          setInterval(function () { if (incomplete()) refresh(); }, 5000);
          if (every > 0) setInterval(refresh, every * 1000);
          if (!("EventSource" in window)) { status("live updates unavailable"); return; }
          var query = "currency=" + encodeURIComponent(param("currency")) + "&locale=" + encodeURIComponent(param("locale"))
            + "&prices=" + encodeURIComponent(param("prices"));
          function connect() {
            source = new EventSource("/events?" + query);
            source.onopen = function () { status("live"); };
            source.onerror = function () { status("reconnecting…"); };
            Object.keys(handlers).forEach(listen);
          }
          connect();
          // A page left for another closes its stream: kept in the back-forward cache it would hold one of the browser's
          // six connections to the dashboard, and a few pages later a form's post would wait for ever. Back again, it
          // connects again and fetches itself.
          window.addEventListener("pagehide", function () { if (source) source.close(); });
          window.addEventListener("pageshow", function (event) { if (event.persisted) { connect(); refresh(); } });
        })();
        """

    /// Live prices: takes the price events of ``live`` and writes each update into the cells marked
    /// `data-price-for="SYMBOL"` (price text and `data-raw`; a price that went up flashes with `flash-up`, one
    /// that went down with `flash-down`, through `Tickwire.flash`) and `data-change-for="SYMBOL"`
    /// (change text and its up/down/flat class). Updates in another currency are ignored.
    /// Its parameter: `data-currency`.
    static let livePrices = """
        (function () {
          var currency = document.currentScript.getAttribute("data-currency");
          window.Tickwire.on("message", function (update) {
            if (!update || update.currency !== currency || typeof update.asset !== "string") return;
            var key = window.CSS && CSS.escape ? CSS.escape(update.asset) : update.asset.replace(/[^A-Za-z0-9_-]/g, "");
            document.querySelectorAll('[data-price-for="' + key + '"]').forEach(function (cell) {
              window.Tickwire.flash(cell, cell.getAttribute("data-raw"), update.raw);
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
          });
        })();
        """

    /// A plugin's form marked `data-confirm` (``PanelForm/confirm``, a removal) asks "are you sure?" before it is
    /// sent, naming its button's text. Listens on the document, so a form swapped in by ``live`` asks too.
    static let confirmForms = """
        (function () {
          document.addEventListener("submit", function (event) {
            var form = event.target;
            if (!form.matches || !form.matches("form[data-confirm]")) return;
            var button = form.querySelector("button[type=submit]");
            if (!window.confirm((button ? button.textContent : "Submit") + ": are you sure?")) event.preventDefault();
          });
        })();
        """

    /// The trade form's suggested price follows the currency chosen: the selected option's `data-price`.
    /// Listens on the document, so a form swapped in by ``live`` is followed too.
    static let tradePrice = """
        (function () {
          var selector = "#trade-form select[name=currency]";
          function suggest(select) {
            var option = select.options[select.selectedIndex];
            var price = select.form && select.form.querySelector("input[name=price]");
            if (price) price.placeholder = (option && option.getAttribute("data-price")) || "";
          }
          document.addEventListener("change", function (event) { if (event.target.matches && event.target.matches(selector)) suggest(event.target); });
          var select = document.querySelector(selector);
          if (select) suggest(select);
        })();
        """

    /// The import form's file input (`#import-file`): the chosen file's text goes into the form's textarea and its name
    /// picks the format; a file over the form's limit (`data-limit`) is refused at once with a note (`#import-file-note`).
    static let importFile = """
        (function () {
          if (window.tickwireImportFile) return;
          window.tickwireImportFile = true;
          document.addEventListener("change", function (event) {
            var input = event.target;
            if (!input.matches || !input.matches("#import-file") || !input.files || !input.files[0]) return;
            var file = input.files[0], form = input.form, note = document.getElementById("import-file-note");
            var limit = Number(input.getAttribute("data-limit")) || 0, kib = Math.ceil(file.size / 1024);
            function say(text) { if (note) note.textContent = text; }
            if (limit && file.size > limit) {
              input.value = "";
              say(file.name + " is " + kib + " KiB: the form takes at most " + Math.floor(limit / 1024) + " KiB. Split it into parts of whole lines.");
              return;
            }
            file.text().then(function (text) {
              form.querySelector("textarea[name=content]").value = text;
              var format = form.querySelector("select[name=format]"), name = file.name.toLowerCase();
              if (format) format.value = name.endsWith(".json") ? "json" : name.endsWith(".csv") ? "csv" : "auto";
              say("Read " + file.name + " (" + kib + " KiB): press Preview import.");
            }, function () { say(file.name + " could not be read."); });
          });
        })();
        """

    /// The chart read-out: hovering or focusing a point shows its date and price under the chart. Listens on
    /// the document, so a chart swapped in by ``live`` is followed too.
    static let chartReadout = """
        (function () {
          function show(event) {
            var point = event.target.closest ? event.target.closest("#price-chart .point") : null;
            var readout = document.getElementById("chart-readout");
            if (point && readout) readout.textContent = point.getAttribute("data-label");
          }
          document.addEventListener("mouseover", show);
          document.addEventListener("focusin", show);
        })();
        """

    /// The Books screen's depth ladder kept live: one connection to `/events/depth` for the book in `data-feed` and
    /// `data-market` (`data-locale` formats it); each `depth` event's ladder replaces the rows of `#bids`, `#asks` and
    /// `#trades` and the spread (its share in brackets) and sequence, built with `textContent` only (nothing from the feed is read as markup),
    /// a changed best price flashing. It closes the connection when the page is left and opens it again when shown.
    static let depthLadder = """
        (function () {
          var script = document.currentScript;
          var param = function (name) { return script.getAttribute("data-" + name) || ""; };
          var url = "/events/depth?feed=" + encodeURIComponent(param("feed")) + "&market=" + encodeURIComponent(param("market"))
            + "&locale=" + encodeURIComponent(param("locale"));
          var source = null;
          function cell(amount, classes) {
            var td = document.createElement("td");
            td.className = classes;
            td.textContent = amount ? amount.text : "\\u2014";
            if (amount) td.setAttribute("data-raw", amount.raw);
            return td;
          }
          function empty(text) {
            var row = document.createElement("tr"), td = document.createElement("td");
            td.colSpan = 4; td.className = "muted"; td.textContent = text;
            row.appendChild(td);
            return row;
          }
          function levels(id, list) {
            var body = document.querySelector("#" + id + " tbody");
            if (!body) return;
            var before = body.querySelector("td.price"), was = before ? before.getAttribute("data-raw") : null;
            var rows = list.map(function (level) {
              var row = document.createElement("tr"), depth = Math.max(0, Math.min(100, parseInt(level.depth, 10) || 0));
              row.appendChild(cell(level.price, "num price"));
              row.appendChild(cell(level.size, "num size"));
              row.appendChild(cell(level.total, "num total"));
              var td = document.createElement("td"), bar = document.createElement("span"), label = document.createElement("span");
              td.className = "depth-cell"; bar.className = "bar w" + depth;
              label.className = "visually-hidden"; label.textContent = depth + " %";
              td.appendChild(bar); td.appendChild(label); row.appendChild(td);
              return row;
            });
            body.replaceChildren.apply(body, rows.length ? rows : [empty("No orders.")]);
            var best = body.querySelector("td.price");
            if (best && window.Tickwire && window.Tickwire.flash) window.Tickwire.flash(best, was, best.getAttribute("data-raw"));
          }
          function trades(list) {
            var body = document.querySelector("#trades tbody");
            if (!body) return;
            var rows = list.map(function (trade) {
              var row = document.createElement("tr"), when = document.createElement("td"), time = document.createElement("time");
              time.setAttribute("datetime", trade.time); time.textContent = trade.timeText; when.appendChild(time);
              var side = document.createElement("td");
              side.className = "side " + (trade.side === "buy" ? "up" : trade.side === "sell" ? "down" : "flat");
              side.textContent = trade.side === "buy" ? "Buy" : trade.side === "sell" ? "Sell" : (trade.side || "\\u2014");
              row.appendChild(when); row.appendChild(side);
              row.appendChild(cell(trade.price, "num price")); row.appendChild(cell(trade.size, "num size"));
              return row;
            });
            body.replaceChildren.apply(body, rows.length ? rows : [empty("No trades yet.")]);
          }
          function text(id, amount, wrap) {
            var element = document.getElementById(id);
            if (!element) return;
            element.textContent = amount ? (wrap ? "(" + amount.text + ")" : amount.text) : "";
            if (amount) element.setAttribute("data-raw", amount.raw); else element.removeAttribute("data-raw");
          }
          function show(ladder) {
            var section = document.getElementById("depth");
            if (!section || section.getAttribute("data-feed") !== ladder.feed || section.getAttribute("data-market") !== ladder.market) return;
            levels("bids", ladder.bids || []);
            levels("asks", ladder.asks || []);
            trades(ladder.trades || []);
            text("spread", ladder.spread || { text: "\\u2014", raw: "" });
            text("spread-percent", ladder.spreadPercent, true);
            var sequence = document.getElementById("sequence");
            if (sequence) sequence.textContent = String(ladder.sequence);
          }
          function connect() {
            if (source || !window.EventSource) return;
            source = new EventSource(url);
            source.addEventListener("depth", function (event) {
              var ladder;
              try { ladder = JSON.parse(event.data); } catch (e) { return; }
              show(ladder);
            });
          }
          function disconnect() { if (source) { source.close(); source = null; } }
          window.addEventListener("pagehide", disconnect);
          window.addEventListener("pageshow", function (event) { if (event.persisted) connect(); });
          connect();
        })();
        """
}
