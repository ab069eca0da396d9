"""Tests of tickwire.messages (unittest): the typed classes read every recorded answer of a real stack
(Sources/TickwireClients/Fixtures) and every envelope example of docs/protocol.md, keep money as Decimal and
times aware, ignore unknown fields, and refuse bad values with the field's path. When docs/contract holds
the generated JSON Schemas, each class's fields are checked against its schema's properties.
"""
import dataclasses
import datetime
import decimal
import json
import os
import re
import typing
import unittest
from pathlib import Path

import tickwire
from tickwire import (PAYLOADS, AlertFired, AlertRule, AssetPrice, Book, BookDepth, BookLevel, Candle, CandleSeries, Coin,
                      ConvertResult, Envelope, ExchangeRate, FeedStatus, Health, Heartbeat, JSONRPCError, MarketTrade, Message,
                      MessageError, PortfolioChange, PriceHistory, Quote, RateSource, RatesResult, Snapshot, TotalResult, loads)

ROOT = Path(os.environ.get("TICKWIRE_ROOT") or Path(__file__).resolve().parents[3])
FIXTURES = ROOT / "Sources" / "TickwireClients" / "Fixtures"
# The plugin's recorded answers live in its own package (the main package's fixtures name no plugin).
PLUGIN_FIXTURES = {"price-alerts": ROOT / "Examples" / "price-alerts" / "Sources" / "PriceAlertsAPI" / "Fixtures"}
PROTOCOL = ROOT / "docs" / "protocol.md"
CONTRACT = ROOT / "docs" / "contract"
UTC = datetime.timezone.utc

# Each recorded answer and the class it is; a list answer is a list of that class.
ANSWERS = {
    "converter/convert.json": ConvertResult, "converter/total.json": TotalResult,
    "converter/rates.json": RatesResult, "converter/sources.json": RateSource,
    "rates-fetcher/feeds.json": FeedStatus, "rates-fetcher/refresh.json": FeedStatus,
    "rates-fetcher/history.json": PriceHistory,
    "price-alerts/alerts.add.json": AlertRule, "price-alerts/alerts.list.json": AlertRule,
}


def fixture_path(name):
    """`service/file.json` in the main package's fixtures, or in the plugin's package for a plugin."""
    service, _, file = name.partition("/")
    return PLUGIN_FIXTURES[service] / file if service in PLUGIN_FIXTURES else FIXTURES / name


def fixture(name):
    return loads(fixture_path(name).read_bytes())


def recorded(file):
    """Each service's recorded `file` (e.g. `snapshot.json`), as (service, path), the plugins' included."""
    found = [(path.parent.name, path) for path in FIXTURES.glob(f"*/{file}")]
    found += [(service, folder / file) for service, folder in PLUGIN_FIXTURES.items() if (folder / file).is_file()]
    return sorted(found)


def walk(value):
    """Every value inside a message, recursively."""
    yield value
    if dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from walk(item)
    elif hasattr(value, "values"):
        for item in value.values():
            yield from walk(item)


class FixtureTests(unittest.TestCase):
    """The recorded answers of a real stack, each read into its class."""

    def assertWellTyped(self, message):
        for value in walk(message):
            self.assertNotIsInstance(value, float, message)
            if isinstance(value, datetime.datetime):
                self.assertIsNotNone(value.tzinfo, message)

    def test_fixtures_are_there(self):
        self.assertTrue(FIXTURES.is_dir(), f"{FIXTURES} is missing: set TICKWIRE_ROOT to the repository")
        self.assertGreaterEqual(len(recorded("snapshot.json")), 3)

    def test_every_recorded_answer_reads_into_its_class(self):
        for name, kind in ANSWERS.items():
            with self.subTest(name):
                answer = fixture(name)
                messages = [kind.from_json(item) for item in (answer if isinstance(answer, list) else [answer])]
                self.assertTrue(messages)
                for message in messages:
                    self.assertIsInstance(message, kind)
                    self.assertWellTyped(message)

    def test_every_health_answer(self):
        names = recorded("health.json")
        self.assertGreaterEqual(len(names), 5)
        for service, path in names:
            health = Health.from_json(loads(path.read_bytes()))
            self.assertEqual(health.service, service)
            self.assertEqual(health.status, "ok")
            self.assertTrue(all(state == "ok" for state in health.upstreams.values()), health)

    def test_convert_keeps_the_exact_decimal_strings(self):
        result = ConvertResult.from_json(fixture("converter/convert.json"))
        self.assertEqual(result, ConvertResult(
            amount=decimal.Decimal("11.72"), currency="USD", rate=decimal.Decimal("1.172195522213105146"),
            rate_exact=False, path=("EUR", "USD"), source="ecb"))
        self.assertEqual(str(result.rate), "1.172195522213105146")

    def test_total_and_alert_rules(self):
        total = TotalResult.from_json(fixture("converter/total.json"))
        self.assertEqual(total.total, decimal.Decimal("14.27"))
        self.assertEqual(sum(item.converted for item in total.items), total.total)
        self.assertEqual(total.items[1].path, ("USD", "EUR"))
        rules = [AlertRule.from_json(item) for item in fixture("price-alerts/alerts.list.json")]
        self.assertEqual((rules[0].above, rules[0].below, rules[0].holds), (decimal.Decimal("1"), None, True))
        self.assertEqual(rules[0].created_at, datetime.datetime(2026, 11, 25, 1, 33, 51, 600000, tzinfo=UTC))
        self.assertEqual((rules[1].above, rules[1].below, rules[1].last_fired), (None, decimal.Decimal("1"), None))

    def test_every_snapshot_entry_reads_into_an_envelope_and_its_payload(self):
        seen = {}
        for service, path in recorded("snapshot.json"):
            snapshot = Snapshot.from_json(loads(path.read_bytes()))
            self.assertEqual(snapshot.publisher, service)
            self.assertTrue(snapshot.entries, path)
            for entry in snapshot.entries:
                with self.subTest(entry.topic):
                    envelope = Envelope.from_json(loads(entry.body))
                    self.assertEqual(envelope.seq, entry.seq)
                    self.assertEqual(envelope.type, entry.topic.split(".")[0])
                    self.assertIsNotNone(envelope.time.tzinfo)
                    kind = PAYLOADS.get(envelope.type)
                    if kind is not None:
                        self.assertIsInstance(envelope.data, kind)
                    self.assertWellTyped(envelope)
                    seen.setdefault(envelope.type, envelope)
        self.assertLessEqual({"quote", "rate", "limits", "coin", "status", "price", "alert"}, set(seen))
        quote = seen["quote"].data
        self.assertEqual(quote, Quote(
            source="bitso", market=tickwire.Market(base="BCH", quote="BTC"), last=decimal.Decimal("0.10010000"),
            high=decimal.Decimal("0.13000000"), low=decimal.Decimal("0.08504409"),
            volume=decimal.Decimal("343.52156543"),
            vwap=decimal.Decimal("0.09354214"), ask=decimal.Decimal("0.11300000"), bid=decimal.Decimal("0.10200000"),
            time=datetime.datetime(2017, 8, 7, 17, 12, 43, tzinfo=UTC)))
        self.assertEqual(seen["rate"].data, ExchangeRate(from_="USD", to="AUD", rate=decimal.Decimal("1.5103")))
        self.assertEqual(seen["price"].data, AssetPrice(
            asset="BCH", currency="EUR", price=decimal.Decimal("5993.64062297"), path=("BCH", "BTC", "USD", "EUR"),
            quote_time=datetime.datetime(2017, 8, 7, 17, 12, 43, tzinfo=UTC)))
        self.assertEqual(seen["alert"].data.threshold, decimal.Decimal("1"))
        self.assertIsInstance(seen["limits"].data, Book)
        self.assertEqual(seen["limits"].data.market, tickwire.Market(base="BCH", quote="BTC"))
        self.assertIsInstance(seen["coin"].data, Coin)
        self.assertIsInstance(seen["assets"].data, list)  # no class: the parsed JSON


class ProtocolExampleTests(unittest.TestCase):
    """The examples of docs/protocol.md."""

    def examples(self):
        blocks = re.findall(r"```json\n(.*?)```", PROTOCOL.read_text(encoding="utf-8"), re.S)
        parsed = []
        for block in blocks:
            try:
                parsed.append(loads(block))
            except ValueError:
                continue  # an example with "..." or "…" in it
        return parsed

    def test_every_envelope_example_reads(self):
        envelopes = [Envelope.from_json(example) for example in self.examples()
                     if "seq" in example and "type" in example]
        types = {envelope.type for envelope in envelopes}
        self.assertLessEqual({"quote", "rate", "limits", "book", "trade", "candle", "coin", "status", "price", "heartbeat",
                              "portfolio", "deleted"}, types)
        for envelope in envelopes:
            kind = PAYLOADS.get(envelope.type)
            if kind is not None:
                self.assertIsInstance(envelope.data, kind, envelope)
        heartbeat = next(envelope for envelope in envelopes if envelope.type == "heartbeat")
        self.assertEqual(heartbeat.data, Heartbeat(
            service="rates-fetcher", instance="ad902c96-10ec-464c-8720-1dbc176e5248", topics=63, dropped=0,
            interval_milliseconds=1000))
        quote = next(envelope for envelope in envelopes if envelope.type == "quote").data
        self.assertEqual((quote.market_cap_rank, quote.change_percent_24h, quote.all_time_high),
                         (1, decimal.Decimal("3.12502"), decimal.Decimal("73738")))
        book = next(envelope for envelope in envelopes if envelope.type == "book").data
        self.assertEqual((book.sequence, book.bids[0], book.asks[-1].size),
                         (27214318, BookLevel(price=decimal.Decimal("1219480.00"), size=decimal.Decimal("0.01920000")),
                          decimal.Decimal("0.11870000")))
        self.assertGreater(book.asks[0].price, book.bids[0].price)
        trade = next(envelope for envelope in envelopes if envelope.type == "trade").data
        self.assertEqual((trade.id, trade.price, trade.size, trade.side),
                         ("85761234", decimal.Decimal("1219800.00"), decimal.Decimal("0.00210000"), "buy"))
        candle = next(envelope for envelope in envelopes if envelope.type == "candle").data
        self.assertEqual((candle.interval, candle.start, candle.open, candle.close, candle.count),
                         ("1m", datetime.datetime(2026, 11, 26, 10, 0, tzinfo=UTC), decimal.Decimal("1219650.00"),
                          decimal.Decimal("1219800.00"), 7))
        deleted = next(envelope for envelope in envelopes if envelope.type == "deleted")
        self.assertTrue(deleted.deleted)
        self.assertIsNone(deleted.data)
        change = next(envelope for envelope in envelopes if envelope.type == "portfolio").data
        self.assertEqual(change, PortfolioChange(reason="trade.added", subject="aaccb15b-2881-42ae-b6d7-549e92459f50",
                                                 portfolio="main"))

    def test_the_error_example_reads(self):
        errors = [JSONRPCError.from_json(example["error"]) for example in self.examples() if "error" in example]
        self.assertEqual(errors[0], JSONRPCError(code=-32010, message="unknown currency: XYZ (no rate mentions it)",
                                                 data={"currency": "XYZ"}))
        self.assertEqual([error.code for error in errors[1:]], [tickwire.FORBIDDEN])
        self.assertEqual(errors[1].data, {"method": "trades.add"})

    def test_the_convert_example_reads(self):
        results = [example["result"] for example in self.examples() if "rateExact" in example.get("result", {})]
        self.assertEqual([ConvertResult.from_json(result).amount for result in results], [decimal.Decimal("9.32")])


class ReadingTests(unittest.TestCase):
    """Forward compatibility, and bad values refused with the field's path."""

    price = {"asset": "BTC", "currency": "SEK", "price": "653697.15144300", "path": ["BTC", "USD", "SEK"]}

    def envelope(self, **changes):
        value = {"type": "price", "seq": 7, "time": "2026-11-23T03:57:21.735Z", "source": "converter",
                 "data": self.price}
        value.update(changes)
        return value

    def test_unknown_fields_are_ignored(self):
        newer = self.envelope(version=1, traceparent="00-abc", data={**self.price, "newField": [1]})
        envelope = Envelope.from_json(newer)
        self.assertEqual(envelope.data.price, decimal.Decimal("653697.15144300"))
        self.assertIsNone(envelope.data.quote_time)

    def test_a_portfolio_change_names_its_portfolio(self):
        change = PortfolioChange.from_json({"reason": "trades.imported", "subject": "4", "portfolio": "Pension"})
        self.assertEqual((change.reason, change.subject, change.portfolio), ("trades.imported", "4", "Pension"))
        self.assertIsNone(PortfolioChange.from_json({"reason": "watchlist.added", "subject": "BTC"}).portfolio)
        with self.assertRaises(MessageError) as raised:
            PortfolioChange.from_json({"reason": "trade.added", "subject": "t", "portfolio": 7})
        self.assertEqual(raised.exception.path, "PortfolioChange.portfolio")

    def test_a_snapshots_retracted_topics(self):
        answer = {"publisher": "converter", "instance": "i-1", "entries": [],
                  "retracted": {"price.DOT.EUR": 11, "price.DOT.USD": 12}}
        snapshot = Snapshot.from_json(answer)
        self.assertEqual(dict(snapshot.retracted), {"price.DOT.EUR": 11, "price.DOT.USD": 12})
        with self.assertRaises(TypeError):
            snapshot.retracted["price.DOT.USD"] = 13  # read-only, as the message is frozen
        older = Snapshot.from_json({"publisher": "converter", "instance": "i-1", "entries": []})
        self.assertEqual(dict(older.retracted), {}, "an older publisher's snapshot has no retracted topics")
        with self.assertRaises(MessageError) as refused:
            Snapshot.from_json({**answer, "retracted": {"price.DOT.USD": "12"}})
        self.assertEqual(refused.exception.path, "Snapshot.retracted.price.DOT.USD")

    def test_the_trace_context_is_exposed(self):
        traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        envelope = Envelope.from_json(self.envelope(traceparent=traceparent, tracestate="a=1,b=2"))
        self.assertEqual((envelope.traceparent, envelope.tracestate), (traceparent, "a=1,b=2"))
        self.assertEqual(envelope.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736")
        bare = Envelope.from_json(self.envelope())
        self.assertEqual((bare.traceparent, bare.tracestate, bare.trace_id), (None, None, None))

    def test_a_bad_trace_context_is_ignored(self):
        for bad in ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-" + "0" * 32 + "-00f067aa0ba902b7-01"]:
            with self.subTest(bad):
                envelope = Envelope.from_json(self.envelope(traceparent=bad))
                self.assertEqual(envelope.traceparent, bad, "kept as it came")
                self.assertIsNone(envelope.trace_id, "but it names no trace")
        odd = Envelope.from_json(self.envelope(traceparent=42, tracestate={"a": 1}))
        self.assertEqual((odd.traceparent, odd.tracestate), (None, None), "a member that is not a string is ignored")
        self.assertEqual(odd.data.asset, "BTC")

    def test_books_trades_and_candles(self):
        market = {"base": "BTC", "quote": "MXN"}
        depth = BookDepth.from_json({"source": "bitso-ws", "market": market, "sequence": 5, "asks": [],
                                     "bids": [{"price": "1.10", "size": "2"}, {"price": "1.05", "size": "0.5"}]})
        self.assertEqual(depth.bids, (BookLevel(price=decimal.Decimal("1.10"), size=decimal.Decimal("2")),
                                      BookLevel(price=decimal.Decimal("1.05"), size=decimal.Decimal("0.5"))))
        self.assertEqual((depth.asks, depth.time), ((), None))
        self.assertEqual(str(depth.bids[0].price), "1.10", "the scale is kept")
        trade = MarketTrade.from_json({"source": "kraken-ws", "market": market, "id": "9", "price": "1.2", "size": "3",
                                       "time": "2026-11-26T10:00:01.004Z"})
        self.assertIsNone(trade.side)
        candle = {"source": "bitso-ws", "market": market, "interval": "5m", "start": "2026-11-26T10:00:00.000Z",
                  "open": "1", "high": "2", "low": "0.5", "close": "1.5", "volume": "0", "count": 3}
        series = CandleSeries.from_json({"source": "bitso-ws", "market": market, "interval": "5m", "candles": [candle]})
        self.assertEqual(series.candles, (Candle.from_json(candle),))
        self.assertEqual(series.candles[0].low, decimal.Decimal("0.5"))
        cases = [
            (BookDepth, {"source": "s", "market": market, "sequence": 1, "bids": [{"price": 1.1, "size": "1"}], "asks": []},
             "BookDepth.bids[0].price", "decimal string"),
            (MarketTrade, {"source": "s", "market": market, "id": "1", "price": "1", "time": "2026-11-26T10:00:01.004Z"},
             "MarketTrade.size", "missing"),
        ]
        for kind, value, path, problem in cases:
            with self.subTest(path=path):
                with self.assertRaises(MessageError) as raised:
                    kind.from_json(value)
                self.assertEqual(raised.exception.path, path)
                self.assertIn(problem, raised.exception.problem)

    def test_a_missing_version_reads_as_1(self):
        self.assertEqual(Envelope.from_json(self.envelope()).version, 1)

    def test_an_unknown_version_is_refused(self):
        with self.assertRaises(MessageError) as refused:
            Envelope.from_json(self.envelope(version=2))
        self.assertIn("unsupported envelope version 2", str(refused.exception))
        self.assertIn("version", str(refused.exception))

    def test_an_unknown_type_keeps_its_json(self):
        envelope = Envelope.from_json(self.envelope(type="novelty", data={"x": "1"}))
        self.assertEqual(envelope.data, {"x": "1"})

    def test_times_with_offsets_are_aware(self):
        status = FeedStatus.from_json({"feed": "bitso", "state": "ok", "lastSuccess": "2026-11-23T04:57:20.5+01:00"})
        self.assertEqual(status.last_success, datetime.datetime(2026, 11, 23, 3, 57, 20, 500000, tzinfo=UTC))

    def test_messages_are_frozen(self):
        price = AssetPrice.from_json(self.price)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            price.price = decimal.Decimal("1")

    def test_bad_values_name_the_field(self):
        cases = [
            (AssetPrice, {**self.price, "price": 653697.15}, "AssetPrice.price", "decimal string"),
            (AssetPrice, {**self.price, "price": "NaN"}, "AssetPrice.price", "decimal string"),
            (AssetPrice, {**self.price, "price": "1e5"}, "AssetPrice.price", "decimal string"),
            (AssetPrice, {"asset": "BTC", "currency": "SEK", "path": []}, "AssetPrice.price", "missing"),
            (AssetPrice, {**self.price, "path": "BTC"}, "AssetPrice.path", "array"),
            (AssetPrice, {**self.price, "path": ["BTC", 1]}, "AssetPrice.path[1]", "string"),
            (AssetPrice, {**self.price, "quoteTime": "2026-11-23T03:57:21"}, "AssetPrice.quoteTime", "offset"),
            (Envelope, self.envelope(seq=True), "Envelope.seq", "integer"),
            (Envelope, self.envelope(seq=0), "Envelope.seq", "positive"),
            (Envelope, self.envelope(data=None), "Envelope.data", "object"),
            (Envelope, self.envelope(data={**self.price, "currency": None}), "Envelope.data.currency", "string"),
            (ConvertResult, [], "ConvertResult", "object"),
            (AlertFired, {"ruleId": "r"}, "AlertFired.asset", "missing"),
        ]
        for kind, value, path, problem in cases:
            with self.subTest(path=path, value=value):
                with self.assertRaises(MessageError) as raised:
                    kind.from_json(value)
                self.assertEqual(raised.exception.path, path)
                self.assertIn(problem, raised.exception.problem)
                self.assertIsInstance(raised.exception, ValueError)


def message_classes():
    kinds = {kind for kind in vars(tickwire).values()
             if isinstance(kind, type) and issubclass(kind, Message) and kind is not Message}
    return sorted(kinds, key=lambda kind: kind.__name__)


class SchemaTests(unittest.TestCase):
    """The classes' fields against the JSON Schemas generated into docs/contract (when they are there): the same
    members, nothing required that the schema leaves optional, and every Money a Decimal and every Time a datetime."""

    # The schema of each class, where its name differs (the Swift type's name).
    NAMES = {"Market": "MarketPair", "Book": "BookInfo", "Coin": "CoinInfo", "RateSource": "RateSourceInfo",
             "TotalItem": "TotalResultItem", "RateEntry": "RatesResultEntry", "JSONRPCError": "RPCError"}
    SCHEMA = CONTRACT / "tickwire.schema.json"
    # price-alerts' messages: a plugin's contract is its own package's (Examples/price-alerts), not in docs/contract;
    # its recorded answers still read into them (FixtureTests).
    PLUGIN_MESSAGES = {"AlertRule", "AlertFired"}

    @unittest.skipUnless(SCHEMA.is_file(), "docs/contract/tickwire.schema.json is not there (yet)")
    def test_fields_match_the_schemas_properties(self):
        definitions = json.loads(self.SCHEMA.read_text(encoding="utf-8"))["$defs"]
        classes = message_classes()
        self.assertGreaterEqual(len(classes), 20)
        for kind in classes:
            if kind.__name__ in self.PLUGIN_MESSAGES:
                continue
            with self.subTest(kind.__name__):
                schema = definitions.get(self.NAMES.get(kind.__name__, kind.__name__))
                self.assertIsNotNone(schema, f"no schema for {kind.__name__} in {self.SCHEMA}")
                properties = schema["properties"]
                self.assertEqual(set(kind.wire_fields()), set(properties))
                hints = typing.get_type_hints(kind)
                required = set()
                for field in dataclasses.fields(kind):
                    name, hint = tickwire.wire_name(field.name), hints[field.name]
                    if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                        required.add(name)
                    reference = properties[name].get("$ref", "")
                    if reference.endswith("/Money"):
                        self.assertIn(decimal.Decimal, (hint, *typing.get_args(hint)), name)
                    if reference.endswith("/Time"):
                        self.assertIn(datetime.datetime, (hint, *typing.get_args(hint)), name)
                self.assertLessEqual(required, set(schema.get("required", [])),
                                     "a field the class requires is optional in the schema")


if __name__ == "__main__":
    unittest.main(verbosity=2)
