"""Benchmark 8 peer: realized and unrealized gains of the activities of a Ghostfolio CSV with Python's decimal.

Reads the file tickwire-bench wrote (Benchmarks/Sources/tickwire-bench/PortfolioBench.swift: 100,000 activities of
20 assets, buys, sells, fees and transfers, seeded) and each asset's USD price (a JSON object), and computes what
the engine's `Gains.compute` (Sources/PortfolioEngine/Gains.swift) does, with the same rules: every amount in USD
rounded half-even to cents as it enters (a buy's lot costs amount x price plus its fee; a transfer in's lot
amount x price); a sell or transfer out takes lots oldest first (FIFO) or from the one pool (average cost), the cost
of part of a lot being cost x part / quantity rounded half-even to cents (the lot keeps the rest); a sell realizes
amount x price less its fee over the cost taken; a fee activity is a cost of its asset. Activities in time order:
by date, then line. decimal at 80 digits of precision, far more than the products and quotients here need, so the
one division's own rounding never decides a cent (a quotient that does not end cannot come within 10^-60 of a half
cent with divisors of at most 16 digits).

Timed: the grouping, ordering and lots of every asset, then the figures (the file is read and parsed untimed).
The last stdout line is JSON: each method's seconds and figures (per asset and the totals, as text).
"""

import argparse
import csv
import json
import time
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from operator import itemgetter

from common import emit

CENT = Decimal("0.01")
ZERO = Decimal(0)
CONTEXT = Context(prec=80, rounding=ROUND_HALF_EVEN)


def day_number(text):
    """Days of a Ghostfolio date (dd-MM-yyyy, dd/MM/yyyy, dd.MM.yyyy or yyyy-MM-dd), to order activities."""
    if text[2] in "-/.":
        day, month, year = int(text[0:2]), int(text[3:5]), int(text[6:10])
    else:
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    return (year * 12 + month) * 31 + day


def read(path):
    """(day, line, kind, asset, amount, price, fee) of each activity line."""
    activities = []
    with open(path, newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle)
        header = [name.strip().lower() for name in next(rows)]
        at = {name: header.index(name) for name in ("date", "code", "price", "quantity", "action", "fee")}
        for line, row in enumerate(rows, start=2):
            kind = row[at["action"]].lower()
            amount, price = Decimal(row[at["quantity"]]), Decimal(row[at["price"]])
            if kind == "fee":
                amount, price = ZERO, ZERO
            activities.append((day_number(row[at["date"]]), line, kind, row[at["code"]].upper(), amount, price,
                               Decimal(row[at["fee"]] or "0")))
    return activities


def money(value):
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def plain(value):
    """Text without a negative zero (decimal keeps -0.00; the Swift side prints 0.00)."""
    return str(value + 0 if value == 0 else value)


def gains(activities, prices, method):
    by_asset = {}
    for activity in activities:
        by_asset.setdefault(activity[3], []).append(activity)
    figures = {}
    with localcontext(CONTEXT):
        for asset in sorted(by_asset):
            lots, head = [], 0
            realized = fees = ZERO
            for _, _, kind, _, amount, price, fee in sorted(by_asset[asset], key=itemgetter(0, 1)):
                fee = money(fee)
                if kind == "buy" or kind == "transfer_in":
                    cost = money(amount * price)
                    if kind == "buy":
                        fees += fee
                        cost += fee
                    if method == "fifo":
                        lots.append([amount, cost])
                    else:
                        pool = lots[head] if head < len(lots) else [ZERO, ZERO]
                        lots, head = [[pool[0] + amount, pool[1] + cost]], 0
                elif kind == "sell" or kind == "transfer_out":
                    remaining, taken = amount, ZERO
                    while remaining != 0:
                        lot = lots[head]
                        if lot[0] <= remaining:
                            taken += lot[1]
                            remaining -= lot[0]
                            head += 1
                        else:
                            part = money(lot[1] * remaining / lot[0])
                            taken += part
                            lot[1] -= part
                            lot[0] -= remaining
                            remaining = ZERO
                    if kind == "sell":
                        fees += fee
                        realized += money(amount * price) - fee - taken
                elif kind == "fee":
                    fees += fee
                    realized -= fee
                else:
                    raise ValueError(f"unknown action {kind}")
            quantity = sum((lot[0] for lot in lots[head:]), ZERO)
            cost_basis = money(sum((lot[1] for lot in lots[head:]), ZERO))
            value = money(ZERO) if quantity == 0 else money(quantity * Decimal(prices[asset]))
            figures[asset] = {"quantity": quantity, "costBasis": cost_basis, "value": value, "realizedGain": money(realized),
                              "unrealizedGain": money(value - cost_basis), "fees": money(fees)}
        total = {key: sum((entry[key] for entry in figures.values()), money(ZERO))
                 for key in ("costBasis", "value", "realizedGain", "unrealizedGain", "fees")}
        total["gain"] = total["realizedGain"] + total["unrealizedGain"]
    figures["total"] = total
    return {asset: {key: plain(value) for key, value in entry.items()} for asset, entry in figures.items()}


def run(csv_path, prices_path, methods):
    start = time.perf_counter()
    activities = read(csv_path)
    parsed = time.perf_counter() - start
    with open(prices_path, encoding="utf-8") as handle:
        prices = json.load(handle)
    result = {"activities": len(activities), "parse_seconds": parsed}
    for method in methods:
        start = time.perf_counter()
        figures = gains(activities, prices, method)
        result[method] = {"seconds": time.perf_counter() - start, "figures": figures}
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", required=True)
    parser.add_argument("--prices", required=True)
    parser.add_argument("--methods", default="fifo,average")
    args = parser.parse_args()
    emit(run(args.csv, args.prices, args.methods.split(",")))
