"""Benchmark 3 peer: `total` of N transactions in EUR with Python's decimal.

Same rates, same seeded transactions (splitmix64, seed 20261123) and same algorithm as
Benchmarks/Sources/tickwire-bench/ConversionBench.swift: each currency's rate to EUR is derived
once along the shortest path as an exact fraction (fractions.Fraction); then per transaction
amount * numerator / denominator is rounded half-even to 2 places (decimal, 80 digits of
precision, far more than the <= 16-digit denominators need, so the division's own rounding
can never decide the result) and summed. A sample is re-checked against pure integer
half-even arithmetic. Timed: best of 3 runs of the conversion loop only.
"""

import argparse
import time
from collections import deque
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from fractions import Fraction

from common import SplitMix64, emit

RATES = [("USD", "EUR", "0.7361"), ("CAD", "USD", "0.7312"), ("AUD", "CAD", "0.9234"),
         ("SEK", "EUR", "0.08712"), ("JPY", "USD", "0.006672"), ("EUR", "GBP", "0.8571")]
CURRENCIES = ["EUR", "USD", "CAD", "AUD", "SEK", "JPY", "GBP"]
CENT = Decimal("0.01")


def derived_rate(source, target):
    """Shortest path (BFS, neighbours in code order), given rates as given, inverse where none is given."""
    edges = {}
    given = {(f, t): Fraction(Decimal(r)) for f, t, r in RATES}
    for (f, t), r in given.items():
        edges.setdefault(f, {})[t] = r
        if (t, f) not in given:
            edges.setdefault(t, {})[f] = 1 / r
    if source == target:
        return Fraction(1)
    parent = {source: None}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nxt in sorted(edges.get(node, {})):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    if target not in parent:
        raise KeyError(f"no path {source}-{target}")
    rate, node = Fraction(1), target
    while parent[node] is not None:
        rate *= edges[parent[node]][node]
        node = parent[node]
    return rate


def transactions(count, seed=20261123):
    rng = SplitMix64(seed)
    amounts, currency = [], []
    for _ in range(count):
        r1, r2 = rng.next(), rng.next()
        c = r1 % 7
        m = r2 % 10_000_000
        if (r1 >> 40) % 10 == 0:
            m = -m
        amounts.append(Decimal(m) if CURRENCIES[c] == "JPY" else Decimal(m).scaleb(-2))
        currency.append(c)
    return amounts, currency


def total(amounts, currency, rates):
    with localcontext(Context(prec=80, rounding=ROUND_HALF_EVEN)):
        s = Decimal("0.00")
        for amount, c in zip(amounts, currency):
            num, den = rates[c]
            s += (amount * num / den).quantize(CENT)
        return s


def exact_half_even(amount, rate):
    """amount * rate rounded half-even to cents, in integers only (the check)."""
    value = Fraction(amount) * rate * 100
    q, r = divmod(value.numerator, value.denominator)
    twice = 2 * r
    if twice > value.denominator or (twice == value.denominator and q % 2 == 1):
        q += 1
    return Decimal(q).scaleb(-2)


def run(count, repeats=3):
    fractions_ = [derived_rate(c, "EUR") for c in CURRENCIES]
    rates = [(Decimal(f.numerator), Decimal(f.denominator)) for f in fractions_]
    amounts, currency = transactions(count)
    best, result = None, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = total(amounts, currency, rates)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    with localcontext(Context(prec=80, rounding=ROUND_HALF_EVEN)):
        for amount, c in list(zip(amounts, currency))[:20_000]:
            num, den = rates[c]
            assert (amount * num / den).quantize(CENT) == exact_half_even(amount, fractions_[c]), amount
    return {"total": str(result), "seconds": best, "per_second": count / best, "count": count,
            "rates": {c: f"{f.numerator}/{f.denominator}" for c, f in zip(CURRENCIES, fractions_)}}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1_000_000)
    args = parser.parse_args()
    emit(run(args.count))
