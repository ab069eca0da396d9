"""Validates a running stack against the generated contract documents (docs/contract) with jsonschema.

Usage: validate_contract.py CONTRACT_DIR SECONDS SERVICE=REP[,PUB] ...
Subscribes to every stream of every service for SECONDS, calls every method that only reads (and
watchlist.add, to see a portfolio.changed), and checks each envelope, each snapshot entry, each request's
params and each reply (its JSON-RPC frame and its result) against the schemas, refusing members a schema
does not list. Prints one JSON summary line; exits 1, naming every failure, when anything does not validate.
"""
import json
import os
import re
import sys
import time

import jsonschema
import zmq

contract, seconds = sys.argv[1], float(sys.argv[2])
services = {}
for argument in sys.argv[3:]:
    name, endpoints = argument.split("=", 1)
    rep, _, pub = endpoints.partition(",")
    services[name] = (rep, pub or None)


def strict(schema):
    """The schema with every listed object closed: a member the contract does not list is an error here."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(value) for value in schema]
    return schema


def load(path):
    with open(os.path.join(contract, path)) as file:
        return strict(json.load(file))


def validator(schema, components):
    return jsonschema.Draft202012Validator(
        {**schema, "components": components}, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


failures = []
counts = {"envelopes": 0, "snapshotEntries": 0, "replies": 0}
kinds, methods_called = set(), set()


def check(what, value, schema_validator):
    errors = sorted(schema_validator.iter_errors(value), key=lambda error: list(error.absolute_path))
    for error in errors[:3]:
        failures.append(f"{what}: {error.json_path}: {error.message[:300]}")
    return not errors


bundle = load("tickwire.schema.json")
response_frame = jsonschema.Draft202012Validator({**bundle, "$ref": "#/$defs/JSONRPCResponse"})
asyncapi = load("asyncapi.json")
channels = []
for kind, channel in asyncapi["channels"].items():
    parts = channel["address"].split(".")
    pattern = r"\.".join(
        ("[A-Za-z0-9_.-]+" if index == 2 == len(parts) - 1 else "[A-Za-z0-9_-]+") if part.startswith("{") else re.escape(part)
        for index, part in enumerate(parts))
    pattern = "^" + pattern + "$"
    message = asyncapi["components"]["messages"][kind]
    channels.append((kind, re.compile(pattern), validator(message["payload"], asyncapi["components"])))


def check_envelope(what, topic, body):
    matching = [channel for channel in channels if channel[1].match(topic)]
    if len(matching) != 1:
        failures.append(f"{what}: topic {topic} is on {len(matching)} channels of asyncapi.json, not one")
        return
    kind, _, envelope = matching[0]
    kinds.add(kind)
    check(f"{what} {topic}", json.loads(body), envelope)


context = zmq.Context()


def call(service, method, params, allowed_errors=()):
    """One JSON-RPC call; its frame and its result or error checked (an error whose code is in `allowed_errors` is an
    answer, not a failure). Returns the result, or None."""
    rep = services[service][0]
    document = documents[service]
    described = next((entry for entry in document["methods"] if entry["name"] == method), None)
    if described is None:
        failures.append(f"{service}.{method}: not in openrpc/{service}.json")
        return None
    params_schema = {"type": "object", "properties": {p["name"]: p["schema"] for p in described["params"]},
                     "required": [p["name"] for p in described["params"] if p["required"]], "additionalProperties": False}
    check(f"{service}.{method} params", params, validator(params_schema, document["components"]))
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, 15000)
    socket.connect(rep)
    try:
        socket.send_json({"jsonrpc": "2.0", "id": f"{service}-{method}", "method": method, "params": params})
        reply = json.loads(socket.recv())
    except zmq.Again:
        failures.append(f"{service}.{method}: no answer within 15 s")
        return None
    finally:
        socket.close()
    counts["replies"] += 1
    methods_called.add(f"{service}.{method}")
    check(f"{service}.{method} reply frame", reply, response_frame)
    if "error" in reply:
        if reply["error"].get("code") in allowed_errors:
            return None
        failures.append(f"{service}.{method}: answered error {reply['error']}")
        return None
    check(f"{service}.{method} result", reply["result"], validator(described["result"]["schema"], document["components"]))
    return reply["result"]


documents = {name: load(f"openrpc/{name}.json") for name in services}

subscribers = []
for name, (_, pub) in services.items():
    if pub:
        socket = context.socket(zmq.SUB)
        socket.connect(pub)
        socket.setsockopt_string(zmq.SUBSCRIBE, "")
        subscribers.append(socket)
time.sleep(0.5)

sku = "T2006"  # the portfolio's first product, once `products` answered
candles_of = None
# Every read method, with params an example stack answers; a write to see portfolio.changed.
for name in services:
    for method in documents[name]["methods"]:
        if method.get("x-changes-state"):
            continue
        required = [p["name"] for p in method["params"] if p["required"]]
        if method["name"] in ("health", "metrics", "sources", "feeds", "coins.list", "trades.list", "watchlist.list",
                              "wallets", "assets", "products", "alerts.list", "portfolios.list"):
            result = call(name, method["name"], {})
        elif method["name"] == "snapshot":
            result = call(name, "snapshot", {"prefix": ""})
            for entry in (result or {}).get("entries", []):
                counts["snapshotEntries"] += 1
                check_envelope(f"{name} snapshot", entry["topic"], entry["body"])
        elif method["name"] == "history":
            call(name, "history", {"asset": "BTC", "currency": "USD", "days": 7})
        elif method["name"] == "rates.history":
            call(name, "rates.history", {"start": "2026-11-02", "end": "2026-11-06"})
        elif method["name"] == "candles":
            candles_of = name  # asked once the streams ran: the hub builds candles from the quotes it publishes
        elif method["name"] == "coins.known":
            call(name, "coins.known", {"query": "bit", "limit": 5})
        elif method["name"] == "convert":
            call(name, "convert", {"amount": "10.00", "from": "EUR", "to": "USD"})
        elif method["name"] == "total":
            call(name, "total", {"items": [{"amount": "10.00", "currency": "EUR"}, {"amount": "5", "currency": "USD"}], "to": "EUR"})
        elif method["name"] == "rates":
            call(name, "rates", {"base": "EUR"})
        elif method["name"] == "convert.series":
            fetched = call("rates-fetcher", "history", {"asset": "BTC", "currency": "USD", "days": 7})
            if fetched:
                call(name, "convert.series", {"history": fetched, "to": "EUR"})
        elif method["name"] == "holdings":
            call(name, "holdings", {"currency": "EUR"})
        elif method["name"] == "trades.history":
            call(name, "trades.history", {})
        elif method["name"] == "gains":
            call(name, "gains", {"currency": "SEK", "method": "average"})
        elif method["name"] == "performance":
            call(name, "performance", {"currency": "EUR", "range": "30D"})
        elif method["name"] == "activities.export":
            for form in ("csv", "json"):
                call(name, "activities.export", {"format": form})
        elif method["name"] == "product":
            products = call(name, "products", {}) or []
            sku = products[0]["sku"] if products else sku
            call(name, "product", {"sku": sku, "currency": "EUR"})
        elif method["name"] == "view":
            for screen, extra in [("assets", {}), ("wallets", {}), ("coins", {}), ("coin", {"symbol": "BTC"}), ("portfolio", {}),
                                  ("books", {}), ("book", {"book": "btc_mxn"}), ("products", {}), ("product", {"sku": sku})]:
                call(name, "view", {"screen": screen, "locale": "de_AT", "currency": "EUR", **extra})
        else:
            failures.append(f"{name}.{method['name']}: this script has no example params for it (required: {required})")
if "portfolio" in services:
    call("portfolio", "watchlist.add", {"asset": "ETH"})

poller = zmq.Poller()
for socket in subscribers:
    poller.register(socket, zmq.POLLIN)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    for socket, _ in poller.poll(100):
        frames = socket.recv_multipart()
        if len(frames) != 2:
            failures.append(f"a stream message of {len(frames)} frames, not [topic, envelope]")
            continue
        counts["envelopes"] += 1
        check_envelope("stream", frames[0].decode(), frames[1])

if candles_of:
    # A series, or -32001 while the store holds no candle of the market yet (the first 1m candle closes after a minute).
    call(candles_of, "candles", {"market": "BTC-MXN", "interval": "1m", "source": "bitso"}, allowed_errors=(-32001,))

print(json.dumps({**counts, "kinds": sorted(kinds), "methods": sorted(methods_called), "failures": failures}))
sys.exit(1 if failures else 0)
