"""Typed messages of docs/protocol.md: frozen dataclasses read from parsed JSON with ``from_json``.

Money and every other decimal string becomes a ``decimal.Decimal`` (never a float); times become aware
``datetime`` objects. Fields are snake_case; on the wire they are camelCase (``change_percent_24h`` is
``changePercent24h``, ``from_`` is ``from``). Unknown fields are ignored, so a newer publisher that adds
one does not break an older reader; a missing required field or a value of the wrong kind is a
``MessageError`` naming the field.

    envelope = Envelope.from_json(raw)          # raw: the dict a Subscriber yields
    if isinstance(envelope.data, AssetPrice):
        print(envelope.data.price)              # Decimal("70229.10000000")
"""
from __future__ import annotations

import dataclasses
import datetime
import decimal
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar, Union

from .client import DELETED, TickwireError

__all__ = [
    "MessageError", "Message", "Envelope", "JSONRPCError", "Market", "Quote", "ExchangeRate", "Book", "BookLevel",
    "BookDepth", "MarketTrade", "Candle", "CandleSeries", "Coin",
    "FeedStatus", "Heartbeat", "AssetPrice", "PortfolioChange", "AlertFired", "ConvertResult", "TotalItem",
    "TotalResult", "RateEntry", "RatesResult", "RateSource", "PricePoint", "PriceHistory", "Health",
    "SnapshotEntry", "Snapshot", "AlertRule", "PAYLOADS", "ENVELOPE_VERSION", "wire_name",
]

_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
M = TypeVar("M", bound="Message")


class MessageError(TickwireError, ValueError):
    """A JSON value that is not the message it should be: `path` says where (``Quote.last``)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


def wire_name(name: str) -> str:
    """The JSON member of a field: ``change_percent_24h`` -> ``changePercent24h``, ``from_`` -> ``from``."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _decimal(value: object, path: str) -> decimal.Decimal:
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        raise MessageError(path, f"expected a decimal string such as \"12.50\", got {value!r}")
    return decimal.Decimal(value)


def _datetime(value: object, path: str) -> datetime.datetime:
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    raise MessageError(path, f"expected an ISO 8601 time with Z or an offset, got {value!r}")


def _decode(hint: Any, value: object, path: str) -> Any:
    """`value` read as the type `hint` (a field's resolved annotation)."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in arguments:
            return None
        (inner,) = [argument for argument in arguments if argument is not type(None)]
        return _decode(inner, value, path)
    if hint is Any:
        return value
    if hint is decimal.Decimal:
        return _decimal(value, path)
    if hint is datetime.datetime:
        return _datetime(value, path)
    if hint is bool or hint is str:
        if not isinstance(value, hint):
            raise MessageError(path, f"expected {'true or false' if hint is bool else 'a string'}, got {_kind(value)}")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise MessageError(path, f"expected an integer, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise MessageError(path, f"expected an array, got {_kind(value)}")
        return tuple(_decode(arguments[0], item, f"{path}[{index}]") for index, item in enumerate(value))
    if origin is Mapping or origin is dict:
        if not isinstance(value, dict):
            raise MessageError(path, f"expected an object, got {_kind(value)}")
        items = {key: _decode(arguments[1], item, f"{path}.{key}") for key, item in value.items()}
        return types.MappingProxyType(items)
    if isinstance(hint, type) and issubclass(hint, Message):
        return hint._read(value, path)
    raise TypeError(f"{path}: no reader for {hint!r}")


class Message:
    """Base of the typed messages: ``from_json`` reads one from parsed JSON (a dict)."""

    __slots__ = ()
    _hints: ClassVar[dict[str, Any]]

    @classmethod
    def from_json(cls: type[M], value: object) -> M:
        """The message in `value` (a dict from ``tickwire.loads`` or ``json.loads``); else ``MessageError``."""
        return cls._read(value, cls.__name__)

    @classmethod
    def _read(cls: type[M], value: object, path: str) -> M:
        if not isinstance(value, dict):
            raise MessageError(path, f"expected an object, got {_kind(value)}")
        hints = cls.__dict__.get("_hints")
        if hints is None:
            hints = typing.get_type_hints(cls)
            cls._hints = hints
        arguments = {}
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]
            name = wire_name(field.name)
            if name in value:
                arguments[field.name] = _decode(hints[field.name], value[name], f"{path}.{name}")
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise MessageError(f"{path}.{name}", "missing")
        return cls(**arguments)

    @classmethod
    def wire_fields(cls) -> list[str]:
        """The JSON members this class reads, in order."""
        return [wire_name(field.name) for field in dataclasses.fields(cls)]  # type: ignore[arg-type]


# Stream payloads (docs/protocol.md "Topics of ...")

@dataclasses.dataclass(frozen=True)
class Market(Message):
    """A market pair: `base` priced in `quote` (``BTC``-``USD``)."""
    base: str
    quote: str


@dataclasses.dataclass(frozen=True)
class Quote(Message):
    """`quote.<feed>.<BASE>-<QUOTE>`: one market's quote; every field but source, market and last is optional."""
    source: str
    market: Market
    last: decimal.Decimal
    open: decimal.Decimal | None = None
    high: decimal.Decimal | None = None
    low: decimal.Decimal | None = None
    volume: decimal.Decimal | None = None
    quote_volume: decimal.Decimal | None = None
    vwap: decimal.Decimal | None = None
    ask: decimal.Decimal | None = None
    bid: decimal.Decimal | None = None
    change_24h: decimal.Decimal | None = None
    change_percent_24h: decimal.Decimal | None = None
    market_cap: decimal.Decimal | None = None
    market_cap_rank: int | None = None
    circulating_supply: decimal.Decimal | None = None
    total_supply: decimal.Decimal | None = None
    max_supply: decimal.Decimal | None = None
    all_time_high: decimal.Decimal | None = None
    time: datetime.datetime | None = None


@dataclasses.dataclass(frozen=True)
class ExchangeRate(Message):
    """`rate.<source>.<FROM>-<TO>`: 1 `from_` is `rate` `to`."""
    from_: str
    to: str
    rate: decimal.Decimal


@dataclasses.dataclass(frozen=True)
class Book(Message):
    """`limits.<feed>.<book>` (type ``limits``; ``book`` before issue 32): an exchange book's order limits."""
    book: str
    market: Market
    minimum_amount: decimal.Decimal | None = None
    maximum_amount: decimal.Decimal | None = None
    minimum_price: decimal.Decimal | None = None
    maximum_price: decimal.Decimal | None = None
    minimum_value: decimal.Decimal | None = None
    maximum_value: decimal.Decimal | None = None


@dataclasses.dataclass(frozen=True)
class BookLevel(Message):
    """One level of an order book: `size` (base currency) resting at `price` (quote currency)."""
    price: decimal.Decimal
    size: decimal.Decimal


@dataclasses.dataclass(frozen=True)
class BookDepth(Message):
    """`book.<feed>.<BASE>-<QUOTE>`: the top levels of a market's order book, `bids` and `asks` best first, at the
    exchange's `sequence`."""
    source: str
    market: Market
    sequence: int
    bids: tuple[BookLevel, ...]
    asks: tuple[BookLevel, ...]
    time: datetime.datetime | None = None


@dataclasses.dataclass(frozen=True)
class MarketTrade(Message):
    """`trade.<feed>.<BASE>-<QUOTE>`: one trade; `side` is the taker's (buy or sell), None where the exchange
    does not say."""
    source: str
    market: Market
    id: str
    price: decimal.Decimal
    size: decimal.Decimal
    time: datetime.datetime
    side: str | None = None


@dataclasses.dataclass(frozen=True)
class Candle(Message):
    """`candle.<interval>.<feed>.<BASE>-<QUOTE>`: open, high, low, close and volume of the `interval` (1m, 5m, 1h
    or 1d) from `start`, built from `count` trades (or quotes, then `volume` is 0) of the feed `source`."""
    source: str
    market: Market
    interval: str
    start: datetime.datetime
    open: decimal.Decimal
    high: decimal.Decimal
    low: decimal.Decimal
    close: decimal.Decimal
    volume: decimal.Decimal
    count: int


@dataclasses.dataclass(frozen=True)
class CandleSeries(Message):
    """rates-fetcher's `candles`: the stored candles of one market and interval, oldest first."""
    source: str
    market: Market
    interval: str
    candles: tuple[Candle, ...]


@dataclasses.dataclass(frozen=True)
class Coin(Message):
    """`coin.coingecko.<SYMBOL>`, and an entry of `coins.list`: a CoinGecko coin."""
    id: str
    symbol: str | None = None
    name: str | None = None
    image: str | None = None


@dataclasses.dataclass(frozen=True)
class FeedStatus(Message):
    """`status.<feed>`, and the answers of `feeds` and `refresh`: `state` is ok, error or stale, and for a feed
    plugin live, stale or gone; `kind` is built-in or plugin, and a plugin has `last_message` and the hub's counts of
    its messages `accepted` and `refused` (by reason)."""
    feed: str
    state: str
    message: str | None = None
    last_success: datetime.datetime | None = None
    last_attempt: datetime.datetime | None = None
    kind: str | None = None
    last_message: datetime.datetime | None = None
    accepted: int | None = None
    refused: Mapping[str, int] | None = None


@dataclasses.dataclass(frozen=True)
class Heartbeat(Message):
    """`heartbeat.<service>`: a new `instance` means the publisher restarted."""
    service: str
    instance: str
    topics: int
    dropped: int
    interval_milliseconds: int


@dataclasses.dataclass(frozen=True)
class AssetPrice(Message):
    """The converter's `price.<ASSET>.<FIAT>`: one unit of `asset` in `currency`."""
    asset: str
    currency: str
    price: decimal.Decimal
    path: tuple[str, ...]
    change_percent_24h: decimal.Decimal | None = None
    quote_time: datetime.datetime | None = None
    source: str | None = None


@dataclasses.dataclass(frozen=True)
class PortfolioChange(Message):
    """The portfolio's `portfolio.changed`: `reason` (``trade.added``, ...), its `subject`, and the `portfolio` (named
    account) it is about, ``None`` for the watch list, which every portfolio shares."""
    reason: str
    subject: str
    portfolio: str | None = None


@dataclasses.dataclass(frozen=True)
class AlertFired(Message):
    """price-alerts' `alert.<ASSET>.<FIAT>`: a rule's condition started to hold."""
    rule_id: str
    asset: str
    currency: str
    condition: str
    threshold: decimal.Decimal
    price: decimal.Decimal
    fired_at: datetime.datetime


PAYLOADS: Mapping[str, type[Message]] = types.MappingProxyType({
    "quote": Quote, "rate": ExchangeRate, "limits": Book, "book": BookDepth, "trade": MarketTrade, "candle": Candle,
    "coin": Coin, "status": FeedStatus,
    "heartbeat": Heartbeat, "price": AssetPrice, "portfolio": PortfolioChange, "alert": AlertFired,
})
"""The payload class of each envelope `type` that ``Envelope.from_json`` reads into a message."""


#: The one envelope version this package reads.
ENVELOPE_VERSION = 1


#: The optional W3C trace context members of an envelope and a request.
TRACE_MEMBERS = ("traceparent", "tracestate")
#: A well-formed `traceparent` (version 00's shape; version ff is invalid), its trace id the first group.
TRACEPARENT = re.compile(r"(?!ff)[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")


@dataclasses.dataclass(frozen=True)
class Envelope(Message):
    """Every stream message's body. `data` is the payload's class from ``PAYLOADS`` when the type has one,
    None for a retraction (type ``deleted``), and the parsed JSON otherwise (``assets``, ``wallets``, ...)."""
    type: str
    seq: int
    time: datetime.datetime
    source: str
    data: Any = None
    #: The envelope format's version (docs/protocol.md "How versions evolve"); a missing one reads as 1.
    version: int = 1
    #: The W3C trace context it was published in (docs/protocol.md "Trace context"); None when it carries none.
    traceparent: str | None = None
    #: The W3C trace state that goes with `traceparent`; None when empty.
    tracestate: str | None = None

    @classmethod
    def _read(cls, value: object, path: str) -> Envelope:
        if isinstance(value, dict) and any(not isinstance(value.get(key, ""), str) for key in TRACE_MEMBERS):
            # A trace context that is not a string is ignored, as a bad one is (docs/protocol.md "Trace context").
            value = {key: member for key, member in value.items() if key not in TRACE_MEMBERS or isinstance(member, str)}
        envelope = super()._read(value, path)
        if envelope.version != ENVELOPE_VERSION:
            raise MessageError(
                f"{path}.version",
                f"unsupported envelope version {envelope.version}: this reader knows version {ENVELOPE_VERSION}")
        if envelope.seq < 1:
            raise MessageError(f"{path}.seq", f"expected a positive integer, got {envelope.seq}")
        if envelope.type == DELETED:
            return dataclasses.replace(envelope, data=None)
        kind = PAYLOADS.get(envelope.type)
        if kind is None:
            return envelope
        return dataclasses.replace(envelope, data=kind._read(envelope.data, f"{path}.data"))

    @property
    def deleted(self) -> bool:
        """Whether this is a retraction: the topic's value is gone."""
        return self.type == DELETED

    @property
    def trace_id(self) -> str | None:
        """The trace id of `traceparent` (32 lower-case hex digits), or None when it has none or it is malformed."""
        match = TRACEPARENT.fullmatch(self.traceparent or "")
        return match.group(1) if match is not None and match.group(1) != "0" * 32 else None


# JSON-RPC answers (docs/protocol.md "Requests")

@dataclasses.dataclass(frozen=True)
class JSONRPCError(Message):
    """A JSON-RPC error answer's `error`: `code` (docs/protocol.md "Error codes"), `message`, optional `data`."""
    code: int
    message: str
    data: Any = None


@dataclasses.dataclass(frozen=True)
class ConvertResult(Message):
    """The converter's `convert`: `amount` in `currency`, at `rate` along `path` of `source`."""
    amount: decimal.Decimal
    currency: str
    rate: decimal.Decimal
    rate_exact: bool
    path: tuple[str, ...]
    source: str


@dataclasses.dataclass(frozen=True)
class TotalItem(Message):
    """One item of a `total`: `amount` in `currency`, `converted` into the total's currency."""
    amount: decimal.Decimal
    currency: str
    converted: decimal.Decimal
    path: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class TotalResult(Message):
    """The converter's `total`: the sum of the rounded items."""
    total: decimal.Decimal
    currency: str
    source: str
    items: tuple[TotalItem, ...]


@dataclasses.dataclass(frozen=True)
class RateEntry(Message):
    """One rate of `rates`: 1 base is `rate` `currency`."""
    currency: str
    rate: decimal.Decimal
    rate_exact: bool
    path: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class RatesResult(Message):
    """The converter's `rates`: every currency's rate from `base`."""
    base: str
    source: str
    rates: tuple[RateEntry, ...]


@dataclasses.dataclass(frozen=True)
class RateSource(Message):
    """One entry of the converter's `sources`."""
    source: str
    rates: int
    currencies: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class PricePoint(Message):
    """One point of a price history: the `price` at `time`."""
    time: datetime.datetime
    price: decimal.Decimal


@dataclasses.dataclass(frozen=True)
class PriceHistory(Message):
    """rates-fetcher's `history`: `asset`'s price in `currency`, oldest point first."""
    asset: str
    currency: str
    points: tuple[PricePoint, ...]


@dataclasses.dataclass(frozen=True)
class Health(Message):
    """Every service's `health`: `status` is ok or degraded; `upstreams` maps a name to ok or what is wrong."""
    status: str
    service: str
    uptime_seconds: int
    upstreams: Mapping[str, str]


@dataclasses.dataclass(frozen=True)
class SnapshotEntry(Message):
    """One topic of a `snapshot`: `body` is the envelope's JSON text, as the stream carries it."""
    topic: str
    seq: int
    body: str


@dataclasses.dataclass(frozen=True)
class Snapshot(Message):
    """Every publisher's `snapshot`: its last value of each topic under the prefix, and in `retracted` the topics
    it holds no value of (retracted) with the seq each stands at; empty when the publisher sent none (an older one)."""
    publisher: str
    instance: str
    entries: tuple[SnapshotEntry, ...]
    retracted: Mapping[str, int] = dataclasses.field(default_factory=lambda: types.MappingProxyType({}))


@dataclasses.dataclass(frozen=True)
class AlertRule(Message):
    """price-alerts' `alerts.add` and `alerts.list`: a rule with `above` or `below`."""
    id: str
    asset: str
    currency: str
    created_at: datetime.datetime
    holds: bool
    above: decimal.Decimal | None = None
    below: decimal.Decimal | None = None
    last_fired: datetime.datetime | None = None
