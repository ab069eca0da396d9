"""What the Python peers share with the Swift benchmarks (Benchmarks/Sources/tickwire-bench)."""

import ctypes
import json
import multiprocessing as mp
import random
import socket
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

MASK = (1 << 64) - 1


class SplitMix64:
    """The seeded generator Swift's SplitMix64 also implements."""

    __slots__ = ("state",)

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


@dataclass(slots=True)
class MarketPair:
    base: str
    quote: str


@dataclass(slots=True)
class Quote:
    """The stream payload (Tickwire's `Quote` with the fields Bitso gives), typed: decimal strings
    on the wire, Decimal in memory; fields in the Swift type's order, so the bytes match."""

    source: str
    market: MarketPair
    last: Decimal
    high: Decimal
    low: Decimal
    volume: Decimal
    ask: Decimal
    bid: Decimal

    @staticmethod
    def from_json(d):
        m = d["market"]
        return Quote(
            d["source"], MarketPair(m["base"], m["quote"]), Decimal(d["last"]), Decimal(d["high"]),
            Decimal(d["low"]), Decimal(d["volume"]), Decimal(d["ask"]), Decimal(d["bid"]))


@dataclass(slots=True)
class Envelope:
    type: str
    seq: int
    time: datetime
    source: str
    data: Quote


def money(mantissa, scale=2):
    return Decimal(mantissa).scaleb(-scale)


SAMPLE_QUOTES = [
    Quote("bitso", MarketPair("BTC", "MXN"), money(129_876_543 + i * 137), money(131_000_000 + i),
          money(128_000_050 - i), money(12_345_678_901 + i * 7, 8), money(129_876_543 + i * 137 + 712),
          money(129_876_543 + i * 137 - 650))
    for i in range(64)
]

TOPICS = [f"quote.bitso.{k}".encode() for k in
          ["BTC-MXN", "ETH-MXN", "XRP-MXN", "LTC-MXN", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD"]]


def wire_time(moment=None):
    """ISO 8601 UTC with milliseconds, as the Swift wire writes it."""
    moment = moment or datetime.now(timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def free_port():
    """A free loopback TCP port below 32768. Not the kernel's port 0 pick: that comes from the ephemeral range
    (32768 up), where libzmq's outgoing connections take their ports too, so a listener bound there later can find
    its port taken ("Address already in use")."""
    for _ in range(1000):
        port = random.randrange(20000, 32768)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port between 20000 and 32767")


def start_publisher(subscriber, *args):
    """A lossless PUB on a free loopback port, with `subscriber(port, *args, ready, out)` in its own
    process, connected (and past the slow-joiner window) when this returns (proc, ctx, pub, out)."""
    import zmq  # here, so the peers that need no sockets run without pyzmq
    port = free_port()
    ready, out = mp.Event(), mp.Queue()
    proc = mp.Process(target=subscriber, args=(port, *args, ready, out))
    proc.start()
    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    pub.setsockopt(zmq.SNDHWM, 0)
    pub.bind(f"tcp://127.0.0.1:{port}")
    ready.wait()
    time.sleep(0.3)  # slow joiner
    return proc, ctx, pub, out


def set_timer_slack_1us():
    """Like the Swift side: wake from sleep within ~1 us (PR_SET_TIMERSLACK)."""
    try:
        ctypes.CDLL(None).prctl(29, 1, 0, 0, 0)
    except Exception:
        pass


def percentiles(micros):
    s = sorted(micros)
    def p(q):
        import math
        rank = max(min(math.ceil(q / 100 * len(s)) - 1, len(s) - 1), 0)
        return s[rank]
    return {"samples": len(s), "p50": p(50), "p99": p(99), "p999": p(99.9), "max": s[-1]}


def emit(result):
    """The last stdout line is the result the Swift harness reads."""
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
