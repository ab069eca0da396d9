"""Benchmark 4 peer: 100,000 locale-formatted currency amounts with babel (CLDR), if installed.

Same amounts as the Swift side (the conversion benchmark's transactions), cycling
de_AT/EUR, en_US/USD, sv_SE/SEK, 2 fraction digits, half-even.
"""

import argparse
import time

from common import emit
from conversion import transactions

LOCALES = [("de_AT", "EUR"), ("en_US", "USD"), ("sv_SE", "SEK")]


def run(count):
    try:
        from babel.numbers import format_currency
    except ImportError:
        return {"skipped": "babel is not installed (pip install babel)"}
    amounts, _ = transactions(count)
    start = time.perf_counter()
    size, firsts = 0, []
    for i in range(count):
        locale, code = LOCALES[i % 3]
        text = format_currency(amounts[i], code, locale=locale, decimal_quantization=True,
                               format=None, currency_digits=True)
        size += len(text.encode())
        if i < 3:
            firsts.append(text)
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "per_second": count / elapsed, "firsts": firsts, "bytes": size}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=100_000)
    args = parser.parse_args()
    emit(run(args.count))
