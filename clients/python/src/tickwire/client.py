"""Tickwire's wire client (see docs/protocol.md), using pyzmq and the standard library.

    from tickwire import Subscriber
    sub = Subscriber("tcp://127.0.0.1:7202", "tcp://127.0.0.1:7201", ["price.BTC."])
    for topic, envelope in sub.updates():
        data = envelope["data"]  # None when the topic was retracted (type "deleted")
        print(topic, data["price"] if data else "removed")  # money is a decimal string: "70229.10000000"

With a stack started with ``--keys DIR`` (CurveZMQ), pass ``Curve``: the client's own certificate
and the service's public key, from the keys directory ``tickwire-keys generate`` made::

    keys = Curve.from_directory("/etc/tickwire/keys", "alice", "converter")
    sub = Subscriber("tcp://host:7202", "tcp://host:7201", ["price.BTC."], curve=keys)

``Client`` calls a service's JSON-RPC 2.0 methods (Lazy Pirate: timeout, new socket, resend).
``Subscriber`` follows a publisher with the Clone pattern: a snapshot, then only the next
``seq`` of each topic, re-synchronising on a gap, on silence or when the publisher restarts.
JSON numbers with a fraction are read as ``decimal.Decimal`` (money is a string on the wire anyway).
"""
from __future__ import annotations

import decimal
import itertools
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import zmq
import zmq.auth

JSON = Any
"""A parsed JSON value: dict, list, str, int, ``decimal.Decimal``, bool or None."""

__all__ = ["Client", "Subscriber", "Curve", "RPCError", "Unreachable", "TickwireError", "loads", "dumps",
           "FORBIDDEN", "DELETED", "JSON"]

FORBIDDEN = -32030
"""The error code of a call to a method that changes state from a client whose key is not a writer's."""

DELETED = "deleted"
"""The envelope type of a retraction: the topic's value is gone (its `data` is null)."""


class TickwireError(Exception):
    """Base class of this module's errors."""


class Unreachable(TickwireError):
    """No reply came from `endpoint` to `method` after `attempts` attempts."""

    def __init__(self, endpoint: str, method: str, attempts: int) -> None:
        super().__init__(f"no reply from {endpoint} to {method} after {attempts} attempts")
        self.endpoint, self.method, self.attempts = endpoint, method, attempts


class RPCError(TickwireError):
    """A JSON-RPC error answer: `code` (e.g. -32010), `message` and optional `data`."""

    def __init__(self, code: int | None, message: str, data: JSON = None) -> None:
        super().__init__(f"{code}: {message}" + (f" {data!r}" if data is not None else ""))
        self.code, self.message, self.data = code, message, data


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def loads(text: str | bytes | bytearray | memoryview) -> JSON:
    """Parses Tickwire JSON: strict UTF-8, fractions as Decimal, no NaN/Infinity."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8")
    return json.loads(text, parse_float=decimal.Decimal, parse_constant=_refuse_constant)


def dumps(value: JSON) -> str:
    """Writes JSON; a Decimal becomes a decimal string, as money is on the wire."""
    def encode(item: object) -> str:
        if isinstance(item, decimal.Decimal):
            return str(item)
        raise TypeError(f"{type(item).__name__} is not JSON serializable")
    return json.dumps(value, default=encode, separators=(",", ":"))


class Curve:
    """CurveZMQ options of a client socket: its own key pair and the server's public key (Z85 bytes)."""

    def __init__(self, public_key: bytes, secret_key: bytes, server_key: bytes) -> None:
        self.public_key, self.secret_key, self.server_key = public_key, secret_key, server_key

    @classmethod
    def from_directory(cls, directory: str, name: str, service: str) -> Curve:
        """The client `name`'s certificate (DIR/private/<name>.key_secret) and `service`'s public key
        (DIR/public/<service>.key), loaded with zmq.auth.load_certificate."""
        if not zmq.has("curve"):
            raise TickwireError("this libzmq was built without CURVE: install pyzmq's wheel or a libzmq with libsodium")
        public, secret = zmq.auth.load_certificate(os.path.join(directory, "private", f"{name}.key_secret"))
        if secret is None:
            raise TickwireError(f"{directory}/private/{name}.key_secret holds no secret-key")
        server, _ = zmq.auth.load_certificate(os.path.join(directory, "public", f"{service}.key"))
        return cls(public, secret, server)

    def apply(self, socket: zmq.Socket[Any]) -> None:
        """Sets the socket's CURVE options; before it connects."""
        socket.curve_publickey = self.public_key
        socket.curve_secretkey = self.secret_key
        socket.curve_serverkey = self.server_key


class Client:
    """A JSON-RPC 2.0 client of one service's REQ/ROUTER endpoint (Lazy Pirate pattern).

    Each attempt waits `timeout` seconds; without a reply the REQ socket is closed (linger 0),
    a new one opened and the request sent again, `retries` more times; then ``Unreachable``.
    The client works again as soon as the service is back. Not thread-safe: one per thread.
    With `curve` (a ``Curve``), it connects with CurveZMQ; a server that does not know its key
    never answers (``Unreachable``).
    """

    def __init__(self, endpoint: str, timeout: float = 2.0, retries: int = 2,
                 context: zmq.Context[Any] | None = None, curve: Curve | None = None) -> None:
        self.endpoint, self.timeout, self.retries, self.curve = endpoint, timeout, retries, curve
        self._context = context or zmq.Context.instance()
        self._ids = itertools.count(1)
        self._socket: zmq.Socket[Any] | None = None

    def _open(self) -> zmq.Socket[Any]:
        socket: zmq.Socket[Any] = self._context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.REQ_RELAXED, 1)    # may send again without a reply...
        socket.setsockopt(zmq.REQ_CORRELATE, 1)  # ...and then ignores the late replies of earlier sends
        socket.setsockopt(zmq.SNDTIMEO, int(self.timeout * 1000))
        if self.curve is not None:
            self.curve.apply(socket)
        socket.connect(self.endpoint)
        return socket

    def _reset(self) -> None:
        if self._socket is not None:
            self._socket.close(linger=0)
        self._socket = None

    def call(self, method: str, params: JSON = None, traceparent: str | None = None,
             tracestate: str | None = None) -> JSON:
        """Calls `method` with `params` (a dict or list, or None) and returns its `result`.

        With `traceparent` (a W3C trace context, e.g. a span's of your own tracer) the service handles the
        request in a span of that trace, and its calls to other services go on in it; `tracestate` goes with
        it (docs/protocol.md "Trace context"). A service ignores a malformed one and starts a fresh trace.

        Raises ``RPCError`` for an error answer and ``Unreachable`` when no reply came.
        """
        request: dict[str, JSON] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            request["params"] = params
        if traceparent is not None:
            request["traceparent"] = traceparent
            if tracestate is not None:
                request["tracestate"] = tracestate
        body = dumps(request).encode()
        for _ in range(self.retries + 1):
            if self._socket is None:
                self._socket = self._open()
            reply = self._attempt(self._socket, body, request["id"])
            if reply is not None:
                if "error" in reply:
                    error = reply["error"] if isinstance(reply["error"], dict) else {}
                    raise RPCError(error.get("code"), error.get("message", "unknown error"), error.get("data"))
                return reply.get("result")
            self._reset()  # a REQ socket with a lost request is unusable: start over (Lazy Pirate)
        raise Unreachable(self.endpoint, method, self.retries + 1)

    def _attempt(self, socket: zmq.Socket[Any], body: bytes, request_id: int) -> dict[str, JSON] | None:
        """Sends once and waits `timeout` for the reply with our id; None when there is none."""
        try:
            socket.send(body)
        except zmq.Again:
            return None
        if not socket.poll(int(self.timeout * 1000), zmq.POLLIN):
            return None
        try:
            reply = loads(socket.recv())
        except ValueError:
            return None  # not JSON: as good as no answer
        if not isinstance(reply, dict) or reply.get("id") != request_id:
            return None  # someone else's reply: REQ cannot wait on, so this attempt is over
        return reply

    def close(self) -> None:
        """Closes the socket; a later call opens a new one."""
        self._reset()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Subscriber:
    """Follows one publisher's topics under `prefixes` with the Clone pattern (docs/protocol.md).

    Subscribes to the prefixes and `heartbeat.`, waits for a first heartbeat (at most
    `heartbeat_timeout`), fetches `snapshot` of each prefix from `rep_endpoint`, then applies
    a stream message only when its `seq` is the held one + 1. A new snapshot replaces the state
    on a gap, after `heartbeat_timeout` without hearing the publisher, or when the heartbeat's
    `instance` changes. Nothing happens between calls of ``updates``/``poll``: drive it.

    A retraction (an envelope of type `deleted` with null data, docs/protocol.md "Retractions")
    removes its topic from `state` and is yielded like an update: `envelope["data"]` is then None.
    A snapshot's `retracted` topics (no value, only the seq each stands at) are in `seqs` but not
    in `state`, so a retracted topic's return is its next message, not a gap.

    Attributes: `state` (topic -> envelope dict), `seqs` (topic -> seq), `instance`, and the
    counters `snapshots`, `resyncs` (snapshots after the first), `gaps`, `malformed`.
    `on_snapshot(state)` is called with the new state after each snapshot, before its entries
    are yielded. With `curve` (a ``Curve``), both its sockets connect with CurveZMQ; where the
    stream comes through a `tickwire-proxy`, `stream_curve` is the SUB socket's (expecting the
    proxy's key: ``Curve.from_directory(DIR, name, "tickwire-proxy")``) and `curve` the snapshots'.
    """

    def __init__(self, pub_endpoint: str, rep_endpoint: str, prefixes: str | Iterable[str],
                 heartbeat_timeout: float = 3.0, context: zmq.Context[Any] | None = None,
                 client: Client | None = None,
                 on_snapshot: Callable[[dict[str, dict[str, JSON]]], object] | None = None,
                 curve: Curve | None = None, stream_curve: Curve | None = None) -> None:
        if isinstance(prefixes, str):
            prefixes = [prefixes]
        self.pub_endpoint, self.prefixes = pub_endpoint, list(prefixes)
        self.heartbeat_timeout, self.on_snapshot = heartbeat_timeout, on_snapshot
        self.client = client or Client(rep_endpoint, context=context, curve=curve)
        self.state: dict[str, dict[str, JSON]] = {}
        self.seqs: dict[str, int] = {}
        self.instance: str | None = None
        self.publisher: str | None = None
        self.snapshots = self.resyncs = self.gaps = self.malformed = 0
        self._socket = (context or zmq.Context.instance()).socket(zmq.SUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        stream_curve = stream_curve or curve
        if stream_curve is not None:
            stream_curve.apply(self._socket)
        for prefix in self.prefixes + ["heartbeat."]:
            self._socket.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        self._socket.connect(pub_endpoint)
        now = time.monotonic()
        self._synced, self._provisional = False, False
        self._started = self._last_heard = self._next_attempt = now
        self._last_heartbeat: float | None = None

    @property
    def synchronized(self) -> bool:
        """Whether the state is a snapshot plus every update since."""
        return self._synced

    def updates(self, timeout: float | None = None) -> Iterator[tuple[str, dict[str, JSON]]]:
        """Yields (topic, envelope) for each snapshot entry and each applied update.

        Ends when nothing was yielded for `timeout` seconds (None: never).
        """
        while True:
            changes = self.poll(timeout)
            if not changes:
                return
            yield from changes

    def poll(self, timeout: float | None = None) -> list[tuple[str, dict[str, JSON]]]:
        """Works until there are changes or `timeout` seconds passed; returns [(topic, envelope)]."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            now = time.monotonic()
            changes: list[tuple[str, dict[str, JSON]]] = []
            if self._synced and now - self._last_heard > self.heartbeat_timeout:
                self._synced = False  # the publisher is silent: the state may be missing updates
            if self._snapshot_due(now):
                changes += self._synchronize()
            wait = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic()))
            if self._socket.poll(int(wait * 1000), zmq.POLLIN):
                changes += self._drain()
            if changes or (deadline is not None and time.monotonic() >= deadline):
                return changes

    def _snapshot_due(self, now: float) -> bool:
        waited = self._last_heartbeat is not None or now - self._started >= self.heartbeat_timeout
        return not self._synced and now >= self._next_attempt and waited

    def _synchronize(self) -> list[tuple[str, dict[str, JSON]]]:
        """Fetches every prefix's snapshot and replaces the state; returns its entries."""
        now = time.monotonic()
        # Without a recent heartbeat the subscription may not be in place yet: fetch again at the next.
        self._provisional = self._last_heartbeat is None or now - self._last_heartbeat > self.heartbeat_timeout
        try:
            results = [self.client.call("snapshot", {"prefix": prefix}) for prefix in self.prefixes]
        except TickwireError:
            self._next_attempt = time.monotonic() + 1.0
            return []
        state: dict[str, dict[str, JSON]] = {}
        seqs: dict[str, int] = {}
        retracted: dict[str, int] = {}
        for result in results:
            if not isinstance(result, dict) or not isinstance(result.get("entries"), list) \
                    or not isinstance(result.get("retracted", {}), (dict, type(None))):
                self.malformed += 1
                self._next_attempt = time.monotonic() + 1.0
                return []
            self.publisher, self.instance = result.get("publisher"), result.get("instance")
            for entry in result["entries"]:
                try:
                    topic, envelope = entry["topic"], loads(entry["body"])
                    seq = _seq(envelope)
                except (KeyError, TypeError, ValueError):
                    self.malformed += 1
                    continue
                if seq >= seqs.get(topic, 0):
                    state[topic], seqs[topic] = envelope, seq
            # Topics the publisher holds no value of (retracted), with the seq each stands at: missing from an older
            # publisher's snapshot. Only their seqs are kept, so a topic's return is the next message, not a gap.
            for topic, seq in (result.get("retracted") or {}).items():
                if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
                    self.malformed += 1
                    continue
                retracted[topic] = max(seq, retracted.get(topic, 0))
        for topic, seq in retracted.items():
            if seq >= seqs.get(topic, 0):
                state.pop(topic, None)  # of overlapping prefixes' snapshots, a later one saw the value retracted
                seqs[topic] = seq
        self.state, self.seqs = state, seqs
        self.resyncs += 1 if self.snapshots else 0
        self.snapshots += 1
        self._synced = True
        self._last_heard = self._next_attempt = time.monotonic()
        if self.on_snapshot:
            self.on_snapshot(self.state)
        return list(state.items())

    def _drain(self, limit: int = 10000) -> list[tuple[str, dict[str, JSON]]]:
        """Reads what waits on the socket (at most `limit` messages); returns the applied ones."""
        changes: list[tuple[str, dict[str, JSON]]] = []
        for _ in range(limit):
            try:
                frames = self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            change = self._receive(frames)
            if change:
                changes.append(change)
        return changes

    def _receive(self, frames: list[bytes]) -> tuple[str, dict[str, JSON]] | None:
        """Takes in one stream message; returns (topic, envelope) when it is applied."""
        try:
            if len(frames) != 2:
                raise ValueError(f"{len(frames)} frames")
            topic, envelope = frames[0].decode("utf-8"), loads(frames[1])
            seq = _seq(envelope)
            if topic.startswith("heartbeat."):
                instance = envelope["data"]["instance"]
                if not isinstance(instance, str):
                    raise ValueError("heartbeat without an instance")
        except (KeyError, TypeError, ValueError):
            self.malformed += 1
            return None
        now = self._last_heard = time.monotonic()
        if topic.startswith("heartbeat."):
            self._last_heartbeat = now
            if self._synced and (self._provisional or instance != self.instance):
                self._synced, self._next_attempt = False, now  # provisional snapshot, or a restart
            return None
        if not self._synced:
            return None
        held = self.seqs.get(topic, 0)
        if seq <= held:
            return None  # already in the snapshot
        if seq != held + 1:
            self.gaps += 1
            self._synced, self._next_attempt = False, now
            return None
        self.seqs[topic] = seq
        if envelope.get("type") == DELETED:
            self.state.pop(topic, None)  # retracted: the publisher holds no value for it any more
        else:
            self.state[topic] = envelope
        return topic, envelope

    def close(self) -> None:
        """Closes the SUB socket and the snapshot client."""
        self._socket.close(linger=0)
        self.client.close()

    def __enter__(self) -> Subscriber:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _seq(envelope: JSON) -> int:
    """The envelope's seq, a positive integer, or ValueError."""
    seq = envelope.get("seq") if isinstance(envelope, dict) else None
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise ValueError(f"bad seq: {seq!r}")
    return seq
