"""Benchmark 11 peer: an order book kept from a recorded stream of level-2 diffs with cryptofeed's C `order-book` package.

Reads the file tickwire-bench wrote (Benchmarks/Sources/tickwire-bench/BookBench.swift: one diff a line, `b` or `a`, the
price and the size as decimal text, size `0` removing the level) into (side, Decimal price, Decimal size) untimed, then
applies every diff to an `order_book.OrderBook` as cryptofeed does (`book.bids[price] = size`, `del book.bids[price]`).

Modes (the last stdout line is JSON):
  timed   "apply": every diff into a new book, the fastest of `--repeat` runs, each on freshly parsed Decimals (seconds);
          "top": the diffs from `--skip` on
          (the ones before applied untimed), `--count` of them, each followed by a read of the book's top 10 levels of each
          side (`SortedDict.index(i)`, the package's fastest read; the first read after a write sorts the keys), the fastest
          of `--repeat` runs (seconds, levels read)
  verify  each diff, then the CRC32 (zlib) of its top 10 as one line of text, `b` and each bid ` price size` best first,
          `|a` and each ask, a newline; the CRC after every `--every` diffs and at the end (tickwire-bench computes the same)
"""

import argparse
import time
import zlib
from decimal import Decimal
from importlib import metadata

from order_book import OrderBook

from common import emit


def read(path):
    """(is_bid, price, size) of each line."""
    diffs = []
    with open(path, encoding="ascii") as handle:
        for line in handle:
            side, price, size = line.split()
            diffs.append((side == "b", Decimal(price), Decimal(size)))
    return diffs


def apply(diffs):
    book = OrderBook()
    bids, asks = book.bids, book.asks
    start = time.perf_counter()
    for is_bid, price, size in diffs:
        side = bids if is_bid else asks
        if size:
            side[price] = size
        else:
            del side[price]
    return time.perf_counter() - start


def top(diffs, skip, count):
    book = OrderBook()
    bids, asks = book.bids, book.asks
    for is_bid, price, size in diffs[:skip]:
        side = bids if is_bid else asks
        if size:
            side[price] = size
        else:
            del side[price]
    levels = 0
    start = time.perf_counter()
    for is_bid, price, size in diffs[skip:skip + count]:
        side = bids if is_bid else asks
        if size:
            side[price] = size
        else:
            del side[price]
        best_bids = [bids.index(i) for i in range(min(10, len(bids)))]
        best_asks = [asks.index(i) for i in range(min(10, len(asks)))]
        levels += len(best_bids) + len(best_asks)
    return time.perf_counter() - start, levels


def verify(diffs, every):
    book = OrderBook()
    bids, asks = book.bids, book.asks
    crc = 0
    checkpoints = []
    for index, (is_bid, price, size) in enumerate(diffs, start=1):
        side = bids if is_bid else asks
        if size:
            side[price] = size
        else:
            del side[price]
        line = "b" + "".join(f" {p} {s}" for p, s in (bids.index(i) for i in range(min(10, len(bids))))) \
            + "|a" + "".join(f" {p} {s}" for p, s in (asks.index(i) for i in range(min(10, len(asks))))) + "\n"
        crc = zlib.crc32(line.encode("ascii"), crc)
        if index % every == 0:
            checkpoints.append(f"{crc:08x}")
    return {"crc": f"{crc:08x}", "checkpoints": checkpoints}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["timed", "verify"])
    parser.add_argument("--diffs", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", type=int, default=100_000)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=100_000)
    args = parser.parse_args()
    if args.mode == "timed":
        # Each run reads the file again, untimed, so its Decimals are new objects, as a stream's parsed prices are: a
        # Decimal caches its hash, and a run over the objects of the run before would skip hashing every key.
        applied = min(apply(read(args.diffs)) for _ in range(args.repeat))
        topped = min((top(read(args.diffs), args.skip, args.count) for _ in range(args.repeat)), key=lambda run: run[0])
        result = {"apply_seconds": applied, "top_seconds": topped[0], "top_levels": topped[1], "top_diffs": args.count}
        diffs = read(args.diffs)
    else:
        diffs = read(args.diffs)
        result = verify(diffs, args.every)
    result["diffs"] = len(diffs)
    result["version"] = metadata.version("order-book")
    emit(result)


if __name__ == "__main__":
    main()
