"""Candles benchmark peer: 1m OHLCV candles of the trades in a CSV file, with Python's decimal (standard library only).

The file (`market,time_ms,price,size` per line, in time order) is the one Benchmarks/Sources/tickwire-bench/CandleBench.swift
wrote and built its own candles from. A candle is a market's trades of one UTC minute (start = floor(seconds / 60) * 60):
open the first price, high the highest (the first of equal ones), low the lowest, close the last, volume the exact sum of
the sizes, count the trades. The digest is FNV-1a 64 over the lines `market,start,open,high,low,close,volume,count` of every
candle, sorted by market and start, decimals written plainly (`format(d, "f")`), as the Swift side writes them.
Timed: the candle loop over the parsed trades only (the file's reading and parsing are not), best of `--repeat`.
"""

import argparse
import time
from decimal import Decimal

from common import emit

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def read(path):
    trades = []
    with open(path, encoding="ascii") as file:
        for line in file:
            market, time_ms, price, size = line.rstrip("\n").split(",")
            trades.append((market, int(time_ms) // 1000, Decimal(price), Decimal(size)))
    return trades


def candles(trades):
    """{(market, start): [open, high, low, close, volume, count]}."""
    built = {}
    for market, seconds, price, size in trades:
        key = (market, seconds - seconds % 60)
        candle = built.get(key)
        if candle is None:
            built[key] = [price, price, price, price, size, 1]
        else:
            if price > candle[1]:
                candle[1] = price
            if price < candle[2]:
                candle[2] = price
            candle[3] = price
            candle[4] += size
            candle[5] += 1
    return built


def digest(built):
    value = FNV_OFFSET
    for (market, start), (o, h, l, c, v, n) in sorted(built.items()):
        line = f"{market},{start},{format(o, 'f')},{format(h, 'f')},{format(l, 'f')},{format(c, 'f')},{format(v, 'f')},{n}\n"
        for byte in line.encode("ascii"):
            value = ((value ^ byte) * FNV_PRIME) & MASK
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trades", required=True)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    trades = read(args.trades)
    best, built = None, None
    for _ in range(args.repeat):
        start = time.perf_counter()
        built = candles(trades)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    emit({"seconds": best, "trades": len(trades), "candles": len(built), "digest": f"{digest(built):016x}"})


if __name__ == "__main__":
    main()
