"""Tickwire from Python (see docs/protocol.md): pyzmq and the standard library.

    from tickwire import AssetPrice, Envelope, Subscriber
    sub = Subscriber("tcp://127.0.0.1:7202", "tcp://127.0.0.1:7201", ["price.BTC."])
    for topic, raw in sub.updates():
        envelope = Envelope.from_json(raw)
        if envelope.data is None:              # the topic was retracted (type "deleted")
            print(topic, "removed")
        elif isinstance(envelope.data, AssetPrice):
            print(topic, envelope.data.price)  # a Decimal: Decimal("70229.10000000")

With a stack started with ``--keys DIR`` (CurveZMQ), pass ``Curve``: the client's own certificate
and the service's public key, from the keys directory ``tickwire-keys generate`` made::

    keys = Curve.from_directory("/etc/tickwire/keys", "alice", "converter")
    sub = Subscriber("tcp://host:7202", "tcp://host:7201", ["price.BTC."], curve=keys)

``Client`` calls a service's JSON-RPC 2.0 methods (Lazy Pirate: timeout, new socket, resend).
``Subscriber`` follows a publisher with the Clone pattern: a snapshot, then only the next
``seq`` of each topic, re-synchronising on a gap, on silence or when the publisher restarts.
It yields envelopes as parsed JSON (dicts, fractions as ``decimal.Decimal``); the classes of
``tickwire.messages`` (``Envelope``, ``Quote``, ``AssetPrice``, ``ConvertResult``, ...) read them into
frozen dataclasses with ``Decimal`` money and aware ``datetime`` times.
"""
from importlib.metadata import PackageNotFoundError, version

from . import client, messages
from .client import *  # noqa: F403
from .messages import *  # noqa: F403

try:
    __version__ = version("tickwire")
except PackageNotFoundError:  # imported from the source tree, not installed
    __version__ = "0+unknown"

__all__ = [*client.__all__, *messages.__all__, "__version__"]
