"""Benchmark 9 peer: import of a Ghostfolio CSV into SQLite (sqlite3) or PostgreSQL (psycopg) in plain Python.

The same steps as the portfolio's `activities.import` (Sources/PortfolioEngine/PortfolioState.swift,
ActivityImport.swift, and the SQLite store's addTrades in Sources/PortfolioCore/PortfolioStore+SQLite.swift), on the
file tickwire-bench wrote: each line read by its header's column names (Ghostfolio's aliases), its date (Ghostfolio's
day formats, the day checked to exist and not to be in the future), action, currency and asset (known: an ISO fiat or
one of the assets priced), quantity, price and fee (exact decimals, no comma) checked; its identity (the fields with
trailing zeros dropped, and the how-manieth line with those fields, hashed to 128 bits) looked up among the requests
stored; every sell and transfer out checked against what the stored activities and the earlier lines hold; a preview
of every line. The commit then writes, in one transaction (WAL, synchronous=FULL), each new line as its trade, its
request (with the trade's JSON) and its audit revision, and checks the ledger of the touched assets as stored. On
PostgreSQL (`--postgres URL`: a new database of that server, dropped after) the write first takes the transaction-level
advisory lock the PostgreSQL store's writes take: (7301, the schema's name hashed), PostgresSchema.writeLock.

Timed: a dry run on a new database, then a commit on it (the file's text is read before the clock starts).
The last stdout line is JSON: seconds of each, lines new and written.
"""

import argparse
import csv
import hashlib
import io
import json
import os
import sqlite3
import time
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from operator import itemgetter

from common import emit

ALIASES = {
    "date": ["date", "tradedate"], "code": ["code", "symbol", "ticker"], "currency": ["ccy", "currency", "currencyprimary"],
    "price": ["price", "tradeprice", "unitprice", "value"], "quantity": ["qty", "quantity", "shares", "units"],
    "action": ["action", "buy/sell", "type"], "fee": ["commission", "fee", "ibcommission"], "feecurrency": ["feecurrency"],
}
FIATS = {"USD", "EUR", "GBP", "SEK", "CHF", "JPY", "CAD", "AUD", "MXN", "NOK", "DKK", "PLN", "CZK", "NZD", "SGD", "HKD"}
METALS = {"XAU", "XAG", "XPT", "XPD"}
KINDS = {"buy", "sell", "fee", "transfer_in", "transfer_out"}
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
SCHEMA = """
CREATE TABLE trade (id TEXT PRIMARY KEY, kind TEXT NOT NULL, asset TEXT NOT NULL, amount TEXT NOT NULL, price TEXT NOT NULL,
    currency TEXT NOT NULL, fee_amount TEXT, fee_currency TEXT, date TEXT NOT NULL, recorded_at TEXT NOT NULL,
    portfolio TEXT NOT NULL DEFAULT 'main');
CREATE INDEX trade_by_asset ON trade (asset, date);
CREATE INDEX trade_by_portfolio ON trade (portfolio, asset, date);
CREATE TABLE request (id TEXT PRIMARY KEY, trade_id TEXT NOT NULL, trade TEXT, action TEXT NOT NULL DEFAULT 'add');
CREATE TABLE trade_revision (seq INTEGER PRIMARY KEY AUTOINCREMENT, trade_id TEXT NOT NULL, action TEXT NOT NULL,
    by TEXT NOT NULL, at TEXT NOT NULL, request_id TEXT, before TEXT, after TEXT);
CREATE INDEX trade_revision_by_trade ON trade_revision (trade_id, seq);
"""
POSTGRES_SCHEMA = SCHEMA.replace("seq INTEGER PRIMARY KEY AUTOINCREMENT", "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")


class Database:
    """sqlite3 or psycopg behind the few calls the import makes; SQL is written with ? marks."""

    def __init__(self, connection, postgres):
        self.connection, self.postgres = connection, postgres

    def sql(self, text):
        return text.replace("?", "%s") if self.postgres else text

    def rows(self, text, arguments=()):
        return self.connection.execute(self.sql(text), arguments).fetchall()

    def execute(self, text, arguments=()):
        self.connection.execute(self.sql(text), arguments)

    def executemany(self, text, rows):
        if self.postgres:
            with self.connection.cursor() as cursor:
                cursor.executemany(self.sql(text), rows)
        else:
            self.connection.executemany(text, rows)


def parse_date(text, now):
    """Midnight UTC of a Ghostfolio day (dd-MM-yyyy, dd/MM/yyyy, dd.MM.yyyy, yyyy-MM-dd, yyyyMMdd) as wire text."""
    if len(text) == 8 and text.isdigit():
        year, month, day = int(text[0:4]), int(text[4:6]), int(text[6:8])
    elif len(text) == 10 and text[2] in "-/." and text[5] == text[2]:
        day, month, year = int(text[0:2]), int(text[3:5]), int(text[6:10])
    elif len(text) == 10 and text[4] in "-/." and text[7] == text[4]:
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    else:
        raise ValueError(f"{text!r} is not a date")
    if not 1 <= month <= 12:
        raise ValueError(f"{text!r} is not a date: there is no month {month}")
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= (29 if month == 2 and leap else DAYS[month - 1]):
        raise ValueError(f"{text!r} is not a date: no day {day} that month")
    wire = f"{year:04d}-{month:02d}-{day:02d}T00:00:00.000Z"
    if wire > now:
        raise ValueError(f"{text!r} is in the future")
    return wire


def amount(text):
    if "," in text:
        raise ValueError(f"{text!r} has a comma: write decimals with a dot")
    try:
        return Decimal(text[1:] if text.startswith("-") else text)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None


def code(text, known):
    upper = text.upper()
    if not (2 <= len(upper) <= 12 and upper.isascii() and upper.isalnum()):
        raise ValueError(f"invalid currency code {text!r}")
    if upper in FIATS or upper in METALS or upper in known:
        return upper
    raise ValueError(f"unknown currency {text}")


def plain(value):
    text = str(value)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def read(content, known, now):
    """(line, activity or None, errors) of every line."""
    rows = csv.reader(io.StringIO(content))
    header = [name.strip().lower() for name in next(rows)]
    at = {}
    for column, names in ALIASES.items():
        for position, name in enumerate(header):
            if name in names:
                at[column] = position
                break
    missing = [column for column in ALIASES if column != "feecurrency" and column not in at]
    if missing:
        raise ValueError(f"missing columns {missing}")
    seen = {}
    lines = []
    for number, row in enumerate(rows, start=2):
        errors = []

        def field(column):
            position = at.get(column)
            value = row[position].strip() if position is not None and position < len(row) else ""
            if not value and column not in ("fee", "feecurrency"):
                errors.append((column, "missing"))
            return value

        def checked(parse, column, *args):
            try:
                return parse(field(column), *args)
            except ValueError as error:
                errors.append((column, str(error)))

        date = checked(parse_date, "date", now)
        kind = field("action").lower()
        if kind not in KINDS:
            errors.append(("action", f"unknown Action {kind!r}"))
        currency = checked(code, "currency", known)
        asset = field("code").upper()
        if asset not in known:
            errors.append(("code", f"unknown asset {asset}"))
        quantity, price = checked(amount, "quantity"), checked(amount, "price")
        fee = checked(lambda text: amount(text or "0"), "fee")
        fee_currency = checked(code, "feecurrency", known) if field("feecurrency") else currency
        if errors:
            lines.append((number, None, errors))
            continue
        if kind == "fee":
            if fee <= 0:
                lines.append((number, None, [("fee", "a fee line's amount is its Fee column, which must be more than 0")]))
                continue
            quantity, price, currency = Decimal(0), Decimal(0), fee_currency
        elif quantity <= 0:
            errors.append(("quantity", f"Quantity must be more than 0 for a {kind}"))
        elif kind == "transfer_out" and price != 0:
            errors.append(("price", "a transfer_out's Price must be 0"))
        elif kind in ("transfer_in", "transfer_out") and fee != 0:
            errors.append(("fee", f"a {kind} carries no fee"))
        if errors:
            lines.append((number, None, errors))
            continue
        key = "|".join([kind, asset, plain(quantity), plain(price), currency, plain(fee), fee_currency if fee else "", date])
        occurrence = seen.get(key, 0) + 1
        seen[key] = occurrence
        identity = "import-" + hashlib.blake2b(f"{key}#{occurrence}".encode(), digest_size=16).hexdigest()
        lines.append((number, {"requestId": identity, "kind": kind, "asset": asset, "amount": quantity, "price": price,
                               "currency": currency, "fee": (fee, fee_currency) if fee else None, "date": date}, []))
    return lines


def seen_requests(db, ids):
    seen = set()
    for start in range(0, len(ids), 500):
        batch = ids[start:start + 500]
        seen.update(row[0] for row in db.rows(f"SELECT id FROM request WHERE id IN ({','.join('?' * len(batch))})", batch))
    return seen


def overdrafts(activities):
    """The sells and transfers out of (date, recorded_at, id, kind, asset, amount) that take more than is held."""
    held, found = {}, []
    for date, _, identity, kind, asset, quantity in sorted(activities, key=itemgetter(0, 1, 2)):
        before = held.get(asset, Decimal(0))
        if kind in ("buy", "transfer_in"):
            held[asset] = before + quantity
        elif kind in ("sell", "transfer_out"):
            if quantity <= before:
                held[asset] = before - quantity
            else:
                found.append((identity, before))
    return found


def stored(db, assets=None):
    sql = "SELECT date, recorded_at, id, kind, asset, amount FROM trade WHERE portfolio = 'main'"
    if assets is not None:
        sql += f" AND asset IN ({','.join('?' * len(assets))})"
    return [(d, r, i, k, a, Decimal(q)) for d, r, i, k, a, q in db.rows(sql, list(assets or []))]


def preview(db, lines, now):
    seen = seen_requests(db, [activity["requestId"] for _, activity, _ in lines if activity])
    fresh = [(number, activity) for number, activity, _ in lines if activity and activity["requestId"] not in seen]
    errors = {number: list(errs) for number, _, errs in lines if errs}
    if fresh:
        pending = [(a["date"], now, f"line-{number:09d}", a["kind"], a["asset"], a["amount"]) for number, a in fresh]
        for identity, held in overdrafts(stored(db) + pending):
            if identity.startswith("line-"):
                errors.setdefault(int(identity[5:]), []).append(("quantity", f"cannot take more than the {held} held then"))
            else:
                errors.setdefault(0, []).append((None, f"stored {identity} would take more than is held"))
    result = []
    for number, activity, _ in lines:
        status = "error" if number in errors else "duplicate" if activity["requestId"] in seen else "new"
        result.append({"line": number, "status": status, "activity": activity if status != "error" else None,
                       "errors": errors.get(number, [])})
    return result, errors


def trade_json(identity, activity, recorded):
    trade = {"id": identity, "kind": activity["kind"], "asset": activity["asset"], "amount": str(activity["amount"]),
             "price": str(activity["price"]), "currency": activity["currency"], "date": activity["date"], "recordedAt": recorded,
             "portfolio": "main"}
    if activity["fee"]:
        trade["fee"] = {"amount": str(activity["fee"][0]), "currency": activity["fee"][1]}
    return json.dumps(trade, separators=(",", ":"))


def import_file(db, content, known, dry_run):
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    lines = read(content, known, now)
    result, errors = preview(db, lines, now)
    new = [entry for entry in result if entry["status"] == "new"]
    if dry_run or errors or not new:
        return len(new), False
    batch = os.urandom(16).hex()
    db.execute("BEGIN" if db.postgres else "BEGIN IMMEDIATE")
    try:
        if db.postgres:
            db.execute("SELECT pg_advisory_xact_lock(7301, hashtext(current_schema()))")
        seen = seen_requests(db, [entry["activity"]["requestId"] for entry in new])
        trades, requests, revisions, assets = [], [], [], set()
        for entry in new:
            activity = entry["activity"]
            if activity["requestId"] in seen:
                continue
            identity = f"{batch}-{entry['line']:09d}"
            body = trade_json(identity, activity, now)
            fee = activity["fee"]
            trades.append((identity, activity["kind"], activity["asset"], str(activity["amount"]), str(activity["price"]),
                           activity["currency"], str(fee[0]) if fee else None, fee[1] if fee else None, activity["date"], now))
            requests.append((activity["requestId"], identity, body))
            revisions.append((identity, "anonymous", now, activity["requestId"], body))
            assets.add(activity["asset"])
        db.executemany("INSERT INTO trade (id, kind, asset, amount, price, currency, fee_amount, fee_currency, date, recorded_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", trades)
        db.executemany("INSERT INTO request (id, trade_id, trade, action) VALUES (?, ?, ?, 'add')", requests)
        db.executemany("INSERT INTO trade_revision (trade_id, action, by, at, request_id, before, after) "
                       "VALUES (?, 'added', ?, ?, ?, NULL, ?)", revisions)
        if overdrafts(stored(db, sorted(assets))):
            raise ValueError("the import would take more than is held")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return len(trades), True


def timed(db, content, known):
    start = time.perf_counter()
    new, _ = import_file(db, content, known, dry_run=True)
    dry = time.perf_counter() - start
    start = time.perf_counter()
    written, committed = import_file(db, content, known, dry_run=False)
    commit = time.perf_counter() - start
    count = db.rows("SELECT count(*) FROM trade")[0][0]
    return {"dry_seconds": dry, "commit_seconds": commit, "new": new, "written": written if committed else 0, "stored": count}


def run_sqlite(content, known, database):
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = FULL")
    connection.executescript(SCHEMA)
    try:
        return timed(Database(connection, postgres=False), content, known)
    finally:
        connection.close()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(database + suffix):
                os.remove(database + suffix)


def run_postgres(content, known, url, name):
    import psycopg  # here, so the SQLite peer runs without it
    base = url.rsplit("/", 1)[0]
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        with psycopg.connect(f"{base}/{name}", autocommit=True) as connection:
            connection.execute(POSTGRES_SCHEMA)
            result = timed(Database(connection, postgres=True), content, known)
            result["server"] = connection.info.parameter_status("server_version")
            result["psycopg"] = psycopg.__version__
            return result
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", required=True)
    parser.add_argument("--prices", required=True)
    parser.add_argument("--database", help="a new SQLite file, removed after")
    parser.add_argument("--postgres", help="a server's URL: the import goes to a new database of it, --postgres-database")
    parser.add_argument("--postgres-database", default="tickwire_bench_import_python")
    args = parser.parse_args()
    with open(args.csv, encoding="utf-8") as handle:
        text = handle.read()
    with open(args.prices, encoding="utf-8") as handle:
        assets = set(json.load(handle))
    if args.postgres:
        emit(run_postgres(text, assets, args.postgres, args.postgres_database))
    else:
        emit(run_sqlite(text, assets, args.database))
