#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus, Fuzz/corpus/<target>/seed-*: valid and nearly valid inputs that
start each fuzzer deep in the code (run again after changing the seeds; `make fuzz` adds what it finds)."""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Fuzz" / "corpus"


def write(target, seeds):
    folder = ROOT / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("seed-*"):
        old.unlink()
    for index, seed in enumerate(seeds):
        (folder / f"seed-{index:03d}").write_bytes(seed if isinstance(seed, bytes) else seed.encode())


quote = {"source": "bitso", "market": {"base": "BTC", "quote": "MXN"}, "last": "612345.10", "high": "620000.00",
         "low": "600000.00", "volume": "343.52156543", "vwap": "611000.00", "ask": "612400.00", "bid": "612300.00",
         "time": "2026-11-25T03:00:00.000Z"}
write("WireJSONFuzzer", [
    json.dumps(quote), json.dumps(quote, indent=2), json.dumps({**quote, "ask": None, "bid": None}),
    '{"a":[1,-2.5e10,0.0001,true,false,null,"x\\u00e9\\ud83d\\ude00\\n"],"b":{"c":{}}}',
    '[]', '{}', '""', '0', '-0.0e-0', '1E400', '"\\ud800"', '[1,]', '{"a":1,"a":2}', '[[[[[[[[[[1]]]]]]]]]]',
    '"caf\u00e9 \u20ac \U0001F600"', '{"t":"2026-11-25T03:00:00Z","n":123456789012345678901234567890}',
    '  {"x" : [ "\\"\\\\\\/\\b\\f\\r\\t" ] }  ', '{"market":{"base":"ETH","quote":"USD"},"source":"x"}',
])

def request(method, params=None, id=1, **extra):
    body = {"jsonrpc": "2.0", "id": id, "method": method, **extra}
    if params is not None:
        body["params"] = params
    return json.dumps(body)

SERVICE = {"rates-fetcher": 0, "converter": 1, "portfolio": 2, "presenter": 3}
standard = [("health", None), ("metrics", None), ("snapshot", {"prefix": "quote."})]
calls = {
    "rates-fetcher": standard + [("feeds", None), ("refresh", {"feed": "bitso"}), ("refresh", {"feed": "nope"}),
                                 ("history", {"asset": "BTC", "currency": "USD", "days": 7}), ("history", {"asset": "BTC", "days": 400})],
    "converter": standard + [("convert", {"amount": "10", "from": "USD", "to": "EUR"}),
                             ("convert", {"amount": "10", "from": "USD", "to": "CAD", "source": "gnb"}),
                             ("total", {"items": [{"amount": "1.5", "currency": "BTC"}, {"amount": "20", "currency": "USD"}], "to": "SEK"}),
                             ("rates", {"base": "USD"}), ("sources", None)],
    "portfolio": standard + [("trades.add", {"asset": "BTC", "amount": "0.5", "price": "30000", "currency": "USD",
                                             "date": "2026-11-25T03:00:00.000Z", "requestId": "r-1"}),
                             ("trades.remove", {"id": "t-1"}), ("trades.list", None), ("holdings", {"currency": "EUR"}),
                             ("watchlist.add", {"asset": "ETH"}), ("watchlist.remove", {"asset": "ETH"}), ("watchlist.list", None),
                             ("wallets", None), ("assets", None), ("products", None), ("product", {"sku": "T2006", "currency": "USD"})],
    "presenter": standard + [("view", {"screen": screen, "locale": "de_AT", "currency": "EUR"}) for screen in
                             ["portfolio", "coins", "books", "products", "wallets", "assets"]] +
                            [("view", {"screen": "coin", "symbol": "BTC"}), ("view", {"screen": "book", "book": "btc_mxn"}),
                             ("view", {"screen": "product", "sku": "T2006"}), ("view", {"screen": "nope"})],
}
seeds = []
for service, methods in calls.items():
    for method, params in methods:
        seeds.append(bytes([SERVICE[service]]) + request(method, params).encode())
seeds += [bytes([1]) + b'{"jsonrpc":"2.0","id":"a","method":"convert","params":{"amount":1}}',
          bytes([2]) + b'[]', bytes([3]) + b'{"jsonrpc":"1.0"}', bytes([0]) + b'{"jsonrpc":"2.0","id":7,"method":"health","timeoutMs":-5}']
write("RPCMethodsFuzzer", seeds)

def envelope(kind, seq, data):
    return json.dumps({"type": kind, "seq": seq, "time": "2026-11-25T03:00:00.000Z", "source": "fuzz", "data": data})

def message(topic, kind, seq, data=None):
    return topic.encode() + b"\x1f" + envelope(kind, seq, data or {}).encode()

heartbeat = lambda instance: b"heartbeat.fuzz\x1f" + envelope("heartbeat", 1, {"service": "fuzz", "instance": instance, "topics": 2, "dropped": 0}).encode()
q = "quote.bitso.btc_mxn"
write("SubscriberFuzzer", [
    b"\x00" + message(q, "quote", 6, quote) + b"\x1e" + message(q, "quote", 7, quote),
    b"\x00" + message(q, "quote", 6) + b"\x1e" + message(q, "quote", 8) + b"\x1d" + message(q, "quote", 9),
    b"\x01" + message(q, "quote", 9) + b"\x1d" + message("price.BTC.USD", "price", 2),
    b"\x00" + message(q, "quote", 4) + b"\x1e" + message(q, "quote", 5) + b"\x1e" + message(q, "quote", 6),
    b"\x00" + heartbeat("run-1") + b"\x1e" + heartbeat("run-2") + b"\x1d" + message(q, "quote", 6),
    b"\x00" + message("quote.new", "quote", 1) + b"\x1e" + b"quote.x\x1fnot json" + b"\x1e" + b"only one frame",
    b"\x01" + message(q, "quote", 18446744073709551615) + b"\x1e" + message(q, "quote", 6),
    b"\x00" + b"\x1d\x1d\x1e\x1f",
])
