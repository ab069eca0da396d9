#!/usr/bin/env python3
"""A Tickwire feed plugin in Python: replays a recorded Kraken ticker (kraken-ticker.json, see PROVENANCE.md) into a
hub's ingest endpoint (rates-fetcher's --ingest) as live quotes, with pyzmq only.

Every second it publishes, as two frames [topic, envelope] on a PUB socket connected to the hub:
  quote.<name>.<BASE>-USD   each market's quote (decimal strings, never floats)
  coin.<name>.<BASE>        each asset's name (no image: the dashboard draws a monogram)
  heartbeat.<name>          proof of life; its instance is new on every start
Each topic numbers its messages 1, 2, 3...; `source` is the feed's name.

    python3 kraken_feed.py --ingest tcp://127.0.0.1:7103 --name kraken
"""
import argparse
import json
import os
import time
import uuid
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import zmq

SAMPLE = Path(__file__).with_name("kraken-ticker.json")
# Kraken's asset codes (X/Z prefixed, XBT for bitcoin) as the stack names them, and each asset's name.
SYMBOLS = {"XBT": "BTC", "LTC": "LTC", "XMR": "XMR", "EOS": "EOS"}
NAMES = {"BTC": "Bitcoin", "LTC": "Litecoin", "XMR": "Monero", "EOS": "EOS"}
FIATS = {"USD", "EUR", "GBP", "CAD", "JPY"}


def market(pair):
    """Kraken's pair name (XXMRZUSD, EOSUSD) as (BASE, QUOTE), or None for one it does not know."""
    for fiat in FIATS:
        for suffix in ("Z" + fiat, fiat):
            if pair.endswith(suffix):
                base = pair[: -len(suffix)]
                base = base[1:] if len(base) == 4 and base.startswith("X") else base
                if base in SYMBOLS:
                    return SYMBOLS[base], fiat
    return None


def quote(name, base, fiat, ticker, now):
    """One Kraken ticker as the contract's Quote: last trade, 24 h open/high/low/volume/vwap, best bid and ask."""
    last, opened = Decimal(ticker["c"][0]), Decimal(ticker["o"])
    change = last - opened
    return {
        "source": name, "market": {"base": base, "quote": fiat}, "last": ticker["c"][0],
        "open": ticker["o"], "high": ticker["h"][1], "low": ticker["l"][1], "volume": ticker["v"][1],
        "vwap": ticker["p"][1], "ask": ticker["a"][0], "bid": ticker["b"][0],
        "change24h": str(change), "changePercent24h": str((change * 100 / opened).quantize(Decimal("0.0001"))),
        "time": now,
    }


def values(name, sample, now):
    """Every (topic, kind, data) of one replay of `sample`: each market's quote and each asset's coin."""
    out, coins = [], set()
    for pair, ticker in sorted(sample["result"].items()):
        found = market(pair)
        if found is None:
            continue
        base, fiat = found
        out.append((f"quote.{name}.{base}-{fiat}", "quote", quote(name, base, fiat, ticker, now)))
        coins.add(base)
    for base in sorted(coins):
        out.append((f"coin.{name}.{base}", "coin", {"id": NAMES[base].lower(), "symbol": base, "name": NAMES[base], "image": ""}))
    return out


def wire_time(moment=None):
    """A wire date: ISO 8601, UTC, milliseconds."""
    moment = moment or datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Feed:
    """A PUB socket connected to a hub's ingest endpoint, numbering each topic's envelopes."""

    def __init__(self, context, ingest, name, interval=1.0):
        self.name, self.interval, self.instance = name, interval, str(uuid.uuid4())
        self.seq = {}
        self.socket = context.socket(zmq.PUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(ingest)

    def send(self, topic, kind, data):
        self.seq[topic] = self.seq.get(topic, 0) + 1
        envelope = {"version": 1, "type": kind, "seq": self.seq[topic], "time": wire_time(), "source": self.name, "data": data}
        self.socket.send_multipart([topic.encode(), json.dumps(envelope, separators=(",", ":")).encode()])

    def heartbeat(self):
        self.send(f"heartbeat.{self.name}", "heartbeat", {
            "service": self.name, "instance": self.instance, "topics": len(self.seq), "dropped": 0,
            "intervalMilliseconds": int(self.interval * 1000)})

    def replay(self, sample):
        """Publishes every value of `sample` once, timed now, then a heartbeat."""
        for topic, kind, data in values(self.name, sample, wire_time()):
            self.send(topic, kind, data)
        self.heartbeat()

    def run(self, sample, rounds=None):
        """Replays `sample` every interval (the hub gets the values again if it restarts), `rounds` times or forever."""
        done = 0
        while rounds is None or done < rounds:
            self.replay(sample)
            done += 1
            time.sleep(self.interval)

    def close(self):
        self.socket.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ingest", default=os.environ.get("TICKWIRE_RATES_FETCHER_INGEST") or "tcp://127.0.0.1:7103",
                        help="the hub's ingest endpoint (env TICKWIRE_RATES_FETCHER_INGEST; default tcp://127.0.0.1:7103)")
    parser.add_argument("--name", default="kraken", help="the feed's source name (default kraken)")
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="a Kraken /0/public/Ticker answer to replay")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between replays and heartbeats (default 1)")
    args = parser.parse_args()
    sample = json.loads(args.sample.read_text())
    if sample.get("error"):
        parser.error(f"{args.sample} is an error answer: {sample['error']}")
    feed = Feed(zmq.Context.instance(), args.ingest, args.name, args.interval)
    print(f"feeding {args.ingest} as {args.name}: {len(values(args.name, sample, wire_time()))} values a round", flush=True)
    try:
        feed.run(sample)
    except KeyboardInterrupt:
        pass
    finally:
        feed.close()


if __name__ == "__main__":
    main()
