"""Benchmark 7: a quote's way to a price, and on to the dashboard (issue 22).

Figures are taken by one Python process listening on loopback, on CLOCK_MONOTONIC (the clock of
`time.monotonic_ns` and `time.perf_counter`, shared by every process of the machine):

- with the stand-in fetcher (7b-7d), each quote carries the moment it was published in its
  `changePercent24h`, which the converter carries into the asset's prices and the presenter into its
  SSE events (`changeRaw`): the latency is the arrival of the `price.BTC.USD` (or of the SSE event of
  BTC, on an HTTP connection to the presenter's `/events`) minus that moment, and a quote is
  followed when a price carrying its moment arrives;
- with the real rates-fetcher (7a), the trigger is a BTC-USD quote of the preferred feed arriving at
  this process from the PUB socket the converter reads, and the answer the `price.BTC.USD` carrying
  that quote's price (its `last` half-even to 8 places: the path is BTC -> USD). The fetcher's PUB
  may hand the converter its copy before this process gets its own: a price that arrives before its
  quote (within 100 ms) counts as followed, at latency 0 (`price_first` says how many).

Runs (`run` does them all and prints one JSON object):

7a. the real rates-fetcher (mock feeds, Bitso polled every second as in benchmark 5) -> converter (`normal`); and,
    for a p99 from enough samples (`idle`), the stand-in fetcher (below) -> converter at 20 BTC-USD quotes a second,
    50 ms apart, so that the converter idles between quotes as it does at the mock's pace, then the same stand-in
    -> the Python peer at the same pace;
7b. a stand-in rates-fetcher (`repricing.py fetcher`: a PUB with sequence numbers, heartbeats and a
    ROUTER answering `snapshot`, the Clone pattern as docs/protocol.md has it) publishing a new BTC-USD
    quote 1,000 times a second -> the converter, and the same stand-in -> the Python peer;
7c. the stand-in flat out, quotes of 20 assets in turn, for --flat-seconds: prices received per second
    against quotes per second (each quote changes its asset's price in 4 currencies), and the BTC
    latency of the first and the last tenth of the run (a backlog shows as a latency that grows);
7d. the stand-in at 200 BTC-USD quotes a second -> converter -> presenter -> an HTTP client of `/events`.

The Python peer (`repricing.py peer`) is the converter's pipeline in Python: a pyzmq subscriber
(snapshot, then updates), exact repricing with `fractions` along BTC -> USD -> EUR -> X and `decimal`
half-even to 8 places, and a pyzmq publisher of the same `price.*` envelopes, publishing only changed prices.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

import orjson
import zmq

from common import emit
from services import environment, launch, stop, wait_healthy, counter, scrape

ASSETS = ["BTC", "ETH", "XRP", "LTC", "SOL", "ADA", "DOT", "DOGE", "AVAX", "LINK",
          "TRX", "BCH", "XLM", "ATOM", "UNI", "ETC", "FIL", "NEAR", "ALGO", "AAVE"]
CURRENCIES = ["USD", "SEK", "EUR", "MXN"]
ECB = {"USD": "1.0812", "SEK": "11.4975", "MXN": "21.8450"}  # 1 EUR in each
EIGHT = Decimal("0.00000001")
BASE_CENTS = 6_500_000  # BTC at 65,000.00 USD; every quote adds a cent


def now_iso():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def expected_price(last):
    """The converter's price of a direct BTC -> USD quote: `last` half-even to 8 places, as text."""
    return str(Decimal(last).quantize(EIGHT, rounding=ROUND_HALF_EVEN))


class ClonePublisher:
    """A stream publisher as docs/protocol.md has it: per-topic sequence numbers, the last envelope
    of every topic for `snapshot`, a heartbeat a second."""

    def __init__(self, ctx, pub, rep, service):
        self.service, self.instance = service, str(uuid.uuid4())
        self.pub = ctx.socket(zmq.PUB)
        self.pub.setsockopt(zmq.SNDHWM, 0)
        self.pub.bind(pub)
        self.rep = ctx.socket(zmq.ROUTER)
        self.rep.bind(rep)
        self.seq, self.last = {}, {}
        self.heartbeat_seq, self.next_heartbeat = 0, 0.0
        self.published = 0

    def publish(self, topic, kind, source, data):
        seq = self.seq.get(topic, 0) + 1
        self.seq[topic] = seq
        body = orjson.dumps({"type": kind, "seq": seq, "time": now_iso(), "source": source, "data": data})
        self.pub.send_multipart([topic.encode(), body])
        self.last[topic] = (seq, body)
        self.published += 1

    def tick(self, timeout_ms=0):
        """Sends a heartbeat when due and answers the requests waiting (or arriving within `timeout_ms`)."""
        now = time.monotonic()
        if now >= self.next_heartbeat:
            self.next_heartbeat = now + 1.0
            self.heartbeat_seq += 1
            body = orjson.dumps({"type": "heartbeat", "seq": self.heartbeat_seq, "time": now_iso(), "source": self.service,
                                 "data": {"service": self.service, "instance": self.instance, "topics": len(self.last),
                                          "dropped": 0, "intervalMilliseconds": 1000}})
            self.pub.send_multipart([f"heartbeat.{self.service}".encode(), body])
        while self.rep.poll(timeout_ms):
            timeout_ms = 0
            frames = self.rep.recv_multipart()
            request = orjson.loads(frames[-1])
            if request.get("method") == "snapshot":
                prefix = (request.get("params") or {}).get("prefix", "")
                entries = [{"topic": t, "seq": s, "body": b.decode()} for t, (s, b) in sorted(self.last.items()) if t.startswith(prefix)]
                result = {"publisher": self.service, "instance": self.instance, "entries": entries}
                reply = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
            else:
                reply = {"jsonrpc": "2.0", "id": request.get("id"),
                         "error": {"code": -32601, "message": f"method not found: {request.get('method')}"}}
            self.rep.send_multipart(frames[:-1] + [orjson.dumps(reply)])


def quote_data(asset, cents):
    """A quote of `asset` in USD. Its `changePercent24h` is the moment it is published (CLOCK_MONOTONIC, ns, the
    clock of `time.monotonic_ns` in every process): the converter carries it into the asset's prices, and the
    presenter into its SSE events (`changeRaw`), so whoever hears a price knows when its quote left."""
    return {"source": "coingecko", "market": {"base": asset, "quote": "USD"}, "last": f"{cents // 100}.{cents % 100:02d}",
            "changePercent24h": str(time.monotonic_ns()), "time": now_iso()}


def fetcher(args):
    """The stand-in rates-fetcher: ECB rates and a quote per asset as its state, then after --delay s,
    --rate quotes a second (0: flat out) of the first --assets assets in turn for --seconds; prints
    `ready`, then `{"published": N}`, and serves snapshots until it is stopped."""
    ctx = zmq.Context()
    clone = ClonePublisher(ctx, args.pub, args.rep, "rates-fetcher")
    for code, rate in ECB.items():
        clone.publish(f"rate.ecb.EUR-{code}", "rate", "ecb", {"from": "EUR", "to": code, "rate": rate})
    cents = {asset: BASE_CENTS - 1000 * index for index, asset in enumerate(ASSETS)}
    for asset in ASSETS:
        clone.publish(f"quote.coingecko.{asset}-USD", "quote", "coingecko", quote_data(asset, cents[asset]))
    print("ready", flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    end_delay = time.monotonic() + args.delay
    while time.monotonic() < end_delay and not stopping:
        clone.tick(50)
    assets = ASSETS[: args.assets]
    start, count = time.monotonic(), 0
    previous, close = 0.0, 0  # quotes sent within 100 us of the one before (catching up after a late wake-up)
    deadline = start + args.seconds
    while not stopping:
        now = time.monotonic()
        if now >= deadline:
            break
        if args.rate > 0:
            due = start + count / args.rate
            if due > now:
                clone.tick(0)
                time.sleep(min(due - now, 0.01))
                continue
        asset = assets[count % len(assets)]
        cents[asset] += 1
        clone.publish(f"quote.coingecko.{asset}-USD", "quote", "coingecko", quote_data(asset, cents[asset]))
        sent = time.monotonic()
        close += sent - previous < 0.0001
        previous = sent
        count += 1
        if count % 64 == 0:
            clone.tick(0)
    print(orjson.dumps({"published": count, "seconds": time.monotonic() - start, "close": close}).decode(), flush=True)
    while not stopping:
        clone.tick(100)


def peer(args):
    """The converter's pipeline in Python: snapshot then updates from --fetcher-pub/--fetcher-rep,
    exact repricing, and `price.*` on --pub (only prices that changed)."""
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    # Bounded, so a peer that falls behind flat out queues at most this much (and then loses quotes) instead of
    # growing without end: unbounded, it grew past 4 GB in 60 s.
    sub.setsockopt(zmq.RCVHWM, 200_000)
    for prefix in (b"quote.", b"rate.", b"heartbeat."):
        sub.setsockopt(zmq.SUBSCRIBE, prefix)
    sub.connect(args.fetcher_pub)
    out = ClonePublisher(ctx, args.pub, args.rep, "converter")
    sub.poll(3000)  # the first heartbeat: the subscription is in place
    seqs, rates, lasts, published = {}, {}, {}, {}

    def apply(topic, envelope):
        data = envelope["data"]
        if topic.startswith("rate.ecb."):
            rates[data["to"]] = Fraction(Decimal(data["rate"]))  # 1 EUR in `to`
            return ASSETS
        if topic.startswith("quote."):
            lasts[data["market"]["base"]] = (Fraction(Decimal(data["last"])), data.get("changePercent24h"), data.get("time"))
            return [data["market"]["base"]]
        return []

    def reprice(assets):
        usd = rates.get("USD")
        for asset in assets:
            if asset not in lasts or usd is None:
                continue
            last, change, quoted = lasts[asset]
            for currency in CURRENCIES:
                if currency == "USD":
                    fraction, path = last, [asset, "USD"]
                elif currency == "EUR":
                    fraction, path = last / usd, [asset, "USD", "EUR"]
                elif currency in rates:
                    fraction, path = last / usd * rates[currency], [asset, "USD", "EUR", currency]
                else:
                    continue
                scaled = fraction * 100_000_000
                q, r = divmod(scaled.numerator, scaled.denominator)
                twice = 2 * r
                if twice > scaled.denominator or (twice == scaled.denominator and q % 2 == 1):
                    q += 1
                price = str(Decimal(q).scaleb(-8))
                topic = f"price.{asset}.{currency}"
                if published.get(topic) == (price, change):
                    continue
                published[topic] = (price, change)
                out.publish(topic, "price", "converter", {"asset": asset, "currency": currency, "price": price,
                                                          "changePercent24h": change, "path": path, "quoteTime": quoted})

    req = ctx.socket(zmq.REQ)
    req.connect(args.fetcher_rep)
    for prefix in ("rate.", "quote."):
        req.send(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "snapshot", "params": {"prefix": prefix}}))
        for entry in orjson.loads(req.recv())["result"]["entries"]:
            seqs[entry["topic"]] = entry["seq"]
            apply(entry["topic"], orjson.loads(entry["body"]))
    reprice(ASSETS)
    print("ready", flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    while not stopping:
        out.tick(0)
        if not sub.poll(100):
            continue
        while True:
            try:
                topic, body = sub.recv_multipart(zmq.NOBLOCK)[:2]
            except zmq.Again:
                break
            topic = topic.decode()
            if topic.startswith("heartbeat."):
                continue
            envelope = orjson.loads(body)
            if envelope["seq"] <= seqs.get(topic, 0):
                continue
            seqs[topic] = envelope["seq"]
            reprice(apply(topic, envelope))


def percentiles(samples):
    s = sorted(samples)
    if not s:
        return None, None
    return s[len(s) // 2], s[min(len(s) - 1, int(len(s) * 0.99))]


class Watcher:
    """This process's two ends: quotes of BTC-USD from `fetcher_pub`, prices from `prices_pub`
    (every `price.` when `count_all`, else `price.BTC.USD` only); latencies by matching prices."""

    def __init__(self, ctx, fetcher_pub, prices_pub, count_all=False, stamped=False):
        self.quotes = ctx.socket(zmq.SUB)
        self.quotes.setsockopt(zmq.RCVHWM, 0)
        self.quotes.setsockopt(zmq.SUBSCRIBE, b"quote.coingecko.BTC-USD")
        self.quotes.setsockopt(zmq.SUBSCRIBE, b"quote.bitso.BTC-USD")
        self.quotes.setsockopt(zmq.SUBSCRIBE, b"quote.wazirx.BTC-USD")
        self.quotes.connect(fetcher_pub)
        self.prices = ctx.socket(zmq.SUB)
        self.prices.setsockopt(zmq.RCVHWM, 0)
        self.prices.setsockopt(zmq.SUBSCRIBE, b"price." if count_all else b"price.BTC.USD")
        self.prices.connect(prices_pub)
        self.poller = zmq.Poller()
        self.poller.register(self.quotes, zmq.POLLIN)
        self.poller.register(self.prices, zmq.POLLIN)
        self.pending = {}          # expected price text -> arrival of its quote
        self.latencies = []        # (arrival of the quote, seconds to its price)
        self.triggers = 0
        self.price_messages = 0
        self.feed_last = {}        # feed -> its last BTC-USD `last`
        self.stamped = stamped     # quotes of the stand-in fetcher: a price's changePercent24h is its quote's send time
        self.seen = set()          # the send times of the prices (or events) heard, from the start: a price may come first
        self.quote_stamps = set()  # the send times of the quotes heard since the last reset
        self.early = {}            # price text -> arrival, for a price that came before this process's copy of its quote
        self.beaten = 0            # quotes whose price came first (counted as latency 0)

    def preferred(self):
        for feed in ("coingecko", "bitso", "wazirx"):
            if feed in self.feed_last:
                return feed
        return None

    def run(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready = {sock for sock, _ in self.poller.poll(100)}
            # Quotes first: a price that came in the same wake-up as its quote must find it waiting.
            for sock in [s for s in (self.quotes, self.prices) if s in ready]:
                while True:
                    try:
                        frames = sock.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    arrived = time.perf_counter()
                    if sock is self.quotes and self.stamped:
                        self.quote(orjson.loads(frames[1])["data"].get("changePercent24h"))
                    elif sock is self.quotes:
                        data = orjson.loads(frames[1])["data"]
                        feed, last = data["source"], data["last"]
                        changed = self.feed_last.get(feed) is not None and Decimal(self.feed_last[feed]) != Decimal(last)
                        self.feed_last[feed] = last
                        if changed and feed == self.preferred():
                            self.triggers += 1
                            early = self.early.pop(expected_price(last), None)
                            if early is not None and arrived - early < 0.1:
                                # The converter's copy of the quote, and its price, beat this process's copy.
                                self.latencies.append((arrived, 0.0))
                                self.beaten += 1
                            else:
                                self.pending[expected_price(last)] = arrived
                    else:
                        self.price_messages += 1
                        if frames[0] == b"price.BTC.USD" and self.stamped:
                            self.stamp(orjson.loads(frames[1])["data"].get("changePercent24h"), arrived)
                        elif frames[0] == b"price.BTC.USD":
                            price = orjson.loads(frames[1])["data"]["price"]
                            sent = self.pending.pop(price, None)
                            if sent is not None:
                                self.latencies.append((sent, arrived - sent))
                            else:
                                self.early[price] = arrived

    def quote(self, stamp):
        """Counts a quote of the stand-in fetcher, which carries its send time `stamp`."""
        self.triggers += 1
        if stamp is not None:
            self.quote_stamps.add(int(Decimal(stamp)))

    def stamp(self, stamp, arrived):
        """Records the latency of the price or event carrying the send time `stamp`, once per quote."""
        if stamp is None:
            return
        stamp = int(Decimal(stamp))
        if stamp in self.seen:
            return
        self.seen.add(stamp)
        self.latencies.append((arrived, (time.monotonic_ns() - stamp) / 1e9))

    def reset(self):
        """Forgets the quotes and latencies so far (the prices heard stay known: a quote's price may beat it here)."""
        self.latencies.clear()
        self.triggers = 0
        self.price_messages = 0
        self.pending.clear()
        self.quote_stamps.clear()

    def followed(self):
        """The quotes heard since the reset whose price (or event) was heard too."""
        return len(self.quote_stamps & self.seen) if self.stamped else len(self.latencies)

    def summary(self, prefix=""):
        p50, p99 = percentiles([l for _, l in self.latencies])
        return {prefix + "p50_ms": p50 * 1000 if p50 is not None else None,
                prefix + "p99_ms": p99 * 1000 if p99 is not None else None,
                prefix + "quotes": self.triggers, prefix + "followed": self.followed()}


def start_fetcher(bench_dir, env, rate, assets, seconds, delay):
    proc = subprocess.Popen([sys.executable, os.path.join(bench_dir, "repricing.py"), "fetcher",
                             "--pub", env["TICKWIRE_RATES_FETCHER_PUB"], "--rep", env["TICKWIRE_RATES_FETCHER_REP"],
                             "--rate", str(rate), "--assets", str(assets), "--seconds", str(seconds), "--delay", str(delay)],
                            stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError("the stand-in fetcher did not start")
    return proc


def start_peer(bench_dir, env):
    proc = subprocess.Popen([sys.executable, os.path.join(bench_dir, "repricing.py"), "peer",
                             "--fetcher-pub", env["TICKWIRE_RATES_FETCHER_PUB"], "--fetcher-rep", env["TICKWIRE_RATES_FETCHER_REP"],
                             "--pub", env["TICKWIRE_CONVERTER_PUB"], "--rep", env["TICKWIRE_CONVERTER_REP"]],
                            stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError("the Python peer did not start")
    return proc


def with_stand_in(bin_dir, bench_dir, target, rate, assets, seconds, count_all=False, extra_setup=None, watcher_class=None):
    """The stand-in fetcher -> `target` ("converter": the real one, "python": the peer), watched for
    `seconds` of quotes at `rate` (0: flat out) of `assets` assets. Returns the watcher and what the fetcher says."""
    env = environment()
    ctx = zmq.Context()
    procs = []
    delay = 3.0
    try:
        procs.append(("fetcher", start_fetcher(bench_dir, env, rate, assets, seconds, delay)))
        began = time.monotonic()
        if target == "converter":
            reply, _ = launch(bin_dir, "converter", [], env, ctx, env["TICKWIRE_CONVERTER_REP"], procs)
            if not reply:
                raise RuntimeError("the converter did not answer")
        else:
            procs.append(("peer", start_peer(bench_dir, env)))
        if extra_setup:
            extra_setup(env, ctx, procs)
        watcher = (watcher_class or Watcher)(ctx, env["TICKWIRE_RATES_FETCHER_PUB"], env["TICKWIRE_CONVERTER_PUB"], count_all, stamped=True)
        watcher.run(max(delay - (time.monotonic() - began), 0.5))  # connect; the flood starts after the delay
        watcher.reset()
        metrics_before = scrape(ctx, env["TICKWIRE_CONVERTER_REP"]) if target == "converter" else ""
        started = time.perf_counter()
        watcher.run(seconds + 1.5)  # and the answers still on their way
        elapsed = time.perf_counter() - started
        fetched = orjson.loads(procs[0][1].stdout.readline() or "{}")
        metrics_after = scrape(ctx, env["TICKWIRE_CONVERTER_REP"]) if target == "converter" else ""
        target_proc = procs[1][1]
        alive = all(p.poll() is None for _, p in procs)
        superseded = None
        if target == "converter":
            superseded = counter(metrics_after, "tickwire_bus_superseded_total") - counter(metrics_before, "tickwire_bus_superseded_total")
        return watcher, {"published": fetched.get("published", 0), "seconds": fetched.get("seconds", seconds), "close": fetched.get("close"),
                         "elapsed": elapsed, "alive": alive, "superseded": superseded, "started": started,
                         "rss_mb": rss_of(target_proc.pid)}
    finally:
        stop(procs)
        ctx.destroy(linger=0)


def rss_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None


def normal_pace(bin_dir, seconds):
    """7a: the real rates-fetcher (mock feeds) -> converter."""
    env = environment()
    ctx = zmq.Context()
    procs = []
    try:
        launch(bin_dir, "rates-fetcher", ["--feeds", "mock", "--period", "bitso=1"], env, ctx, env["TICKWIRE_RATES_FETCHER_REP"], procs)
        launch(bin_dir, "converter", [], env, ctx, env["TICKWIRE_CONVERTER_REP"], procs)
        watcher = Watcher(ctx, env["TICKWIRE_RATES_FETCHER_PUB"], env["TICKWIRE_CONVERTER_PUB"])
        watcher.run(2)
        watcher.reset()
        watcher.run(seconds * 3)  # the mock quotes BTC-USD about once a second
        return dict(watcher.summary(), feed=watcher.preferred(), price_first=watcher.beaten)
    finally:
        stop(procs)
        ctx.destroy(linger=0)


def paced(bin_dir, bench_dir, target, seconds, rate=1000):
    """7b: 1,000 BTC-USD quotes a second (7a's idle run: `rate` 20, the converter idle between quotes)."""
    watcher, info = with_stand_in(bin_dir, bench_dir, target, rate, 1, seconds)
    return dict(watcher.summary(), quotes_per_second=info["published"] / max(info["seconds"], 1e-9), alive=info["alive"],
                superseded=info["superseded"], sent_within_100us=info["close"])


def flat_out(bin_dir, bench_dir, target, seconds):
    """7c: quotes of 20 assets in turn, as fast as the stand-in can publish them."""
    watcher, info = with_stand_in(bin_dir, bench_dir, target, 0, 20, seconds, count_all=True)
    tenth = seconds / 10
    first = [l for t, l in watcher.latencies if t - info["started"] < tenth]
    last = [l for t, l in watcher.latencies if t - info["started"] > seconds - tenth]
    p50_first, _ = percentiles(first)
    p50_last, _ = percentiles(last)
    return {"quotes_per_second": info["published"] / max(info["seconds"], 1e-9),
            "prices_per_second": watcher.price_messages / info["elapsed"],
            "superseded_per_second": info["superseded"] / info["seconds"] if info["superseded"] is not None else None,
            "btc_p50_first_tenth_ms": p50_first * 1000 if p50_first is not None else None,
            "btc_p50_last_tenth_ms": p50_last * 1000 if p50_last is not None else None,
            "btc_quotes": watcher.triggers, "btc_followed": watcher.followed(),
            "rss_mb_end": info["rss_mb"], "alive": info["alive"]}


class SSEWatcher(Watcher):
    """A watcher whose answers are the presenter's SSE events of BTC on the HTTP connection `sse`
    (set before it runs), timed by their `changeRaw` (the quote's send time)."""

    sse = None

    def run(self, seconds):
        if self.sse is not None and not getattr(self, "registered", False):
            self.poller.register(self.sse.fileno(), zmq.POLLIN)
            self.registered, self.buffer = True, b""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready = [item for item, _ in self.poller.poll(100)]
            # Quotes first: an event that came in the same wake-up as its quote must find it waiting.
            ready.sort(key=lambda item: 0 if item is self.quotes else 1)
            for item in ready:
                if item is self.quotes:
                    while True:
                        try:
                            frames = self.quotes.recv_multipart(zmq.NOBLOCK)
                        except zmq.Again:
                            break
                        self.quote(orjson.loads(frames[1])["data"].get("changePercent24h"))
                elif item is self.prices:
                    while True:
                        try:
                            self.prices.recv_multipart(zmq.NOBLOCK)
                        except zmq.Again:
                            break
                else:
                    self.read_events()

    def read_events(self):
        try:
            chunk = self.sse.recv(65536)
        except BlockingIOError:
            return
        arrived = time.perf_counter()
        self.buffer += chunk
        while b"\n\n" in self.buffer:
            event, self.buffer = self.buffer.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                start = line.find(b"data: {")
                if start < 0:
                    continue
                data = orjson.loads(line[start + 6:])
                if data.get("asset") == "BTC":
                    self.stamp(data.get("changeRaw"), arrived)


def sse(bin_dir, bench_dir, seconds):
    """7d: 200 BTC-USD quotes a second -> converter -> presenter -> `/events?currency=USD` over HTTP."""
    connections = []

    def setup(env, ctx, procs):
        reply, _ = launch(bin_dir, "presenter", [], env, ctx, env["TICKWIRE_PRESENTER_REP"], procs)
        if not reply:
            raise RuntimeError("the presenter did not answer")
        host, port = env["TICKWIRE_PRESENTER_HTTP"].rsplit("/", 1)[-1].split(":")
        for _ in range(100):  # the HTTP server may start after the REP socket answers
            try:
                connection = socket.create_connection((host, int(port)))
                break
            except ConnectionRefusedError:
                time.sleep(0.05)
        else:
            raise RuntimeError("the presenter's HTTP server did not accept a connection")
        connection.sendall(f"GET /events?currency=USD&locale=en_US HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        connection.setblocking(False)
        connections.append(connection)
        SSEWatcher.sse = connection

    try:
        watcher, info = with_stand_in(bin_dir, bench_dir, "converter", 200, 1, seconds, extra_setup=setup, watcher_class=SSEWatcher)
    finally:
        for connection in connections:
            connection.close()
    return dict(watcher.summary(), alive=info["alive"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetcher")
    f.add_argument("--pub", required=True)
    f.add_argument("--rep", required=True)
    f.add_argument("--rate", type=float, default=1000)
    f.add_argument("--assets", type=int, default=1)
    f.add_argument("--seconds", type=float, default=10)
    f.add_argument("--delay", type=float, default=3)
    p = sub.add_parser("peer")
    p.add_argument("--fetcher-pub", required=True)
    p.add_argument("--fetcher-rep", required=True)
    p.add_argument("--pub", required=True)
    p.add_argument("--rep", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bin-dir", required=True)
    r.add_argument("--seconds", type=float, default=10)
    r.add_argument("--flat-seconds", type=float, default=60)
    r.add_argument("--idle-seconds", type=float, default=0, help="seconds of the 20 quotes/s runs (0: 6 x --seconds)")
    r.add_argument("--only", default="normal,idle,paced,flat,sse")
    args = parser.parse_args()
    if args.command == "fetcher":
        fetcher(args)
    elif args.command == "peer":
        peer(args)
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        only = set(args.only.split(","))
        def attempt(run, *arguments):
            try:
                return run(*arguments)
            except Exception as error:  # one failed run must not take the others' figures with it
                return {"error": repr(error)}

        out = {}
        if "normal" in only:
            out["normal"] = attempt(normal_pace, args.bin_dir, args.seconds)
        if "idle" in only:
            # The mock quotes BTC-USD about once a second: too few samples for a p99. The stand-in at 20 a second,
            # each quote 50 ms after the last (the pipeline idles between them, as at the mock's pace), gives 20 times
            # more; the Python pipeline at the same pace right after, for the figure beside it.
            idle_seconds = args.idle_seconds or args.seconds * 6
            out["idle"] = {"converter": attempt(paced, args.bin_dir, here, "converter", idle_seconds, 20),
                           "python": attempt(paced, args.bin_dir, here, "python", idle_seconds, 20)}
        if "paced" in only:
            out["paced"] = {"converter": attempt(paced, args.bin_dir, here, "converter", args.seconds),
                            "python": attempt(paced, args.bin_dir, here, "python", args.seconds)}
        if "flat" in only:
            out["flat"] = {"converter": attempt(flat_out, args.bin_dir, here, "converter", args.flat_seconds),
                           "python": attempt(flat_out, args.bin_dir, here, "python", args.flat_seconds)}
        if "sse" in only:
            out["sse"] = attempt(sse, args.bin_dir, here, args.seconds)
        emit(out)
