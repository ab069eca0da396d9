#!/usr/bin/env python3
"""Records the answers of a real stack as the fixtures of the `test` clients (TickwireClients).

Usage: scripts/record-client-fixtures.py BIN_DIR PLUGIN_BIN_DIR [OUT_DIR]

Starts rates-fetcher (recorded feeds: `--feeds test`, its feed plugins' ingest endpoint in the temporary
folder too, never the default TCP port), converter, portfolio (an in-memory
database) and presenter from BIN_DIR, and price-alerts from PLUGIN_BIN_DIR (Examples/price-alerts'
build), on ipc endpoints of a temporary folder; adds two trades, a watched coin and two alert
rules, calls every method of every service and writes each answer's `result` as
OUT_DIR/<service>/<method>.json (default: Sources/TickwireClients/Fixtures), price-alerts' into its own
package's PriceAlertsAPI/Fixtures (OUT_DIR/price-alerts when OUT_DIR is given). Run it again when
a method or a payload changes; the contract tests check the fixtures still decode.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import zmq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    bin_dir, plugin_dir = sys.argv[1], sys.argv[2]
    out_dir = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "Sources/TickwireClients/Fixtures")
    work = tempfile.mkdtemp(prefix="tickwire-record-")
    ep = {name: f"ipc://{work}/{name}" for name in
          ["fetcher-pub", "fetcher-rep", "converter-pub", "converter-rep", "portfolio-pub", "portfolio-rep", "presenter-rep",
           "alerts-pub", "alerts-rep", "fetcher-ingest"]}
    upstream = ["--fetcher-pub", ep["fetcher-pub"], "--fetcher-rep", ep["fetcher-rep"]]
    converter = ["--converter-pub", ep["converter-pub"], "--converter-rep", ep["converter-rep"]]
    portfolio = ["--portfolio-pub", ep["portfolio-pub"], "--portfolio-rep", ep["portfolio-rep"]]
    commands = [
        ["rates-fetcher", "--feeds", "test", "--pub", ep["fetcher-pub"], "--rep", ep["fetcher-rep"], "--ingest", ep["fetcher-ingest"]],
        ["converter", "--pub", ep["converter-pub"], "--rep", ep["converter-rep"]] + upstream,
        ["portfolio", "--pub", ep["portfolio-pub"], "--rep", ep["portfolio-rep"], "--database", ":memory:"] + upstream + converter,
        ["presenter", "--rep", ep["presenter-rep"], "--http", "http://127.0.0.1:0",
         "--plugin", f"price-alerts={ep['alerts-rep']},{ep['alerts-pub']}"] + upstream + converter + portfolio,
    ]
    processes = [subprocess.Popen([os.path.join(bin_dir, c[0])] + c[1:], stderr=open(os.path.join(work, c[0] + ".log"), "w"))
                 for c in commands]
    processes.append(subprocess.Popen(
        [os.path.join(plugin_dir, "price-alerts"), "--rep", ep["alerts-rep"], "--pub", ep["alerts-pub"], "--database", ":memory:"] + converter,
        stderr=open(os.path.join(work, "price-alerts.log"), "w")))
    context = zmq.Context()
    try:
        def call(endpoint, method, params=None):
            socket = context.socket(zmq.REQ)
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.RCVTIMEO, 10000)
            socket.connect(endpoint)
            request = {"jsonrpc": "2.0", "id": 1, "method": method}
            if params is not None:
                request["params"] = params
            socket.send_string(json.dumps(request))
            reply = json.loads(socket.recv())
            socket.close()
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply["result"]

        def settled():
            try:
                holdings = call(ep["portfolio-rep"], "holdings", {"currency": "USD"})
                coins = call(ep["presenter-rep"], "view", {"screen": "coins", "currency": "USD"})
                products = call(ep["portfolio-rep"], "products")
                return not holdings["offline"] and coins["rows"] and products
            except RuntimeError:
                return False

        deadline = time.time() + 60
        while not settled():
            if time.time() > deadline:
                raise SystemExit(f"the stack did not settle in 60 s; logs in {work}")
            time.sleep(0.5)
        for request in [
            {"asset": "BTC", "amount": "0.5", "price": "60000", "currency": "USD", "date": "2026-01-15T00:00:00.000Z", "requestId": "fixture-1"},
            {"asset": "ETH", "amount": "2", "price": "30000", "currency": "SEK", "date": "2026-02-01T00:00:00.000Z", "requestId": "fixture-2"},
        ]:
            call(ep["portfolio-rep"], "trades.add", request)
        call(ep["portfolio-rep"], "watchlist.add", {"asset": "BTC"})
        added = call(ep["alerts-rep"], "alerts.add", {"asset": "BTC", "currency": "USD", "above": "1", "requestId": "fixture-alert-1"})
        call(ep["alerts-rep"], "alerts.add", {"asset": "ETH", "currency": "USD", "below": "1", "requestId": "fixture-alert-2"})
        time.sleep(1)

        answers = {
            "rates-fetcher": {
                "snapshot": call(ep["fetcher-rep"], "snapshot", {"prefix": ""}),
                "feeds": call(ep["fetcher-rep"], "feeds"),
                "history": call(ep["fetcher-rep"], "history", {"asset": "BTC", "currency": "USD", "days": 30}),
                "candles": call(ep["fetcher-rep"], "candles", {"market": "BTC-MXN", "interval": "1m"}),
                "refresh": call(ep["fetcher-rep"], "refresh", {"feed": "bitso"}),
                "rates.history": call(ep["fetcher-rep"], "rates.history", {"start": "2026-09-30", "end": "2026-10-04"}),
                "health": call(ep["fetcher-rep"], "health"),
            },
            "converter": {
                "snapshot": call(ep["converter-rep"], "snapshot", {"prefix": ""}),
                "convert": call(ep["converter-rep"], "convert", {"amount": "10", "from": "EUR", "to": "USD"}),
                "total": call(ep["converter-rep"], "total", {"items": [{"amount": "10", "currency": "EUR"}, {"amount": "5", "currency": "USD"}], "to": "EUR"}),
                "rates": call(ep["converter-rep"], "rates", {"base": "USD"}),
                "sources": call(ep["converter-rep"], "sources"),
                # The recorded ECB series has 2026-09-30 to 10-02: a weekday, a Saturday (Friday's rate) and a
                # day too far past it (today's rate).
                "convert.series": call(ep["converter-rep"], "convert.series", {"history": {"asset": "BTC", "currency": "USD", "points": [
                    {"time": "2026-10-01T00:00:00.000Z", "price": "60000"}, {"time": "2026-10-03T12:00:00.000Z", "price": "61000.5"},
                    {"time": "2026-10-08T00:00:00.000Z", "price": "62000"}]}, "to": "INR"}),
                "health": call(ep["converter-rep"], "health"),
            },
            "portfolio": {
                "trades.list": call(ep["portfolio-rep"], "trades.list"),
                "holdings": call(ep["portfolio-rep"], "holdings", {"currency": "USD"}),
                "watchlist.list": call(ep["portfolio-rep"], "watchlist.list"),
                "wallets": call(ep["portfolio-rep"], "wallets"),
                "assets": call(ep["portfolio-rep"], "assets"),
                "products": call(ep["portfolio-rep"], "products"),
                "product": call(ep["portfolio-rep"], "product", {"sku": "T2006"}),
                "health": call(ep["portfolio-rep"], "health"),
            },
            "presenter": {
                "health": call(ep["presenter-rep"], "health"),
            },
            "price-alerts": {
                "alerts.add": added,
                "alerts.list": call(ep["alerts-rep"], "alerts.list"),
                "snapshot": call(ep["alerts-rep"], "snapshot", {"prefix": ""}),
                "health": call(ep["alerts-rep"], "health"),
            },
        }
        views = {"assets": {}, "wallets": {}, "coins": {}, "coin": {"symbol": "BTC"}, "portfolio": {},
                 "books": {}, "book": {"book": "btc_mxn"}, "products": {}, "product": {"sku": "T2006"}}
        for screen, parameters in views.items():
            answers["presenter"][f"view-{screen}"] = call(ep["presenter-rep"], "view", {"screen": screen, **parameters})
        plugin_fixtures = (os.path.join(out_dir, "price-alerts") if len(sys.argv) > 3
                           else os.path.join(ROOT, "Examples/price-alerts/Sources/PriceAlertsAPI/Fixtures"))
        for service, methods in answers.items():
            folder = plugin_fixtures if service == "price-alerts" else os.path.join(out_dir, service)
            os.makedirs(folder, exist_ok=True)
            for method, result in methods.items():
                with open(os.path.join(folder, f"{method}.json"), "w") as file:
                    json.dump(result, file, indent=1, ensure_ascii=False)
                    file.write("\n")
        print(f"recorded {sum(len(m) for m in answers.values())} answers into {out_dir}")
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=10)
        context.term()


if __name__ == "__main__":
    main()
