"""What a Python user with pyzmq sees of a stack started with --keys (run by EndToEndTests).

Environment: TICKWIRE_KEYS (made by `tickwire-keys generate DIR --clients alice --writers bob`),
TICKWIRE_CONVERTER_PUB, TICKWIRE_CONVERTER_REP, TICKWIRE_PORTFOLIO_REP, TICKWIRE_PROXY_PUB (a tickwire-proxy in
front of the converter's stream, with the same keys); PYTHONPATH holds clients/python/src.
"""
import itertools
import os
import tempfile
import time
import unittest
import uuid

import zmq
import zmq.auth

from tickwire import FORBIDDEN, Client, Curve, RPCError, Subscriber, Unreachable

KEYS = os.environ["TICKWIRE_KEYS"]
CONVERTER_PUB = os.environ["TICKWIRE_CONVERTER_PUB"]
CONVERTER_REP = os.environ["TICKWIRE_CONVERTER_REP"]
PORTFOLIO_REP = os.environ["TICKWIRE_PORTFOLIO_REP"]
PROXY_PUB = os.environ["TICKWIRE_PROXY_PUB"]
# How long a refused client waits before it is sure it got nothing.
REFUSED_WAIT = 3.0


def trade():
    return {"asset": "BTC", "amount": "0.5", "price": "100", "currency": "USD",
            "date": "2024-01-02T00:00:00Z", "requestId": str(uuid.uuid4())}


def unknown_curve(service):
    """A certificate pyzmq makes that is in no list of the stack, with `service`'s real public key."""
    folder = tempfile.mkdtemp()
    _, secret_file = zmq.auth.create_certificates(folder, "stranger")
    public, secret = zmq.auth.load_certificate(secret_file)
    server, _ = zmq.auth.load_certificate(os.path.join(KEYS, "public", f"{service}.key"))
    return Curve(public, secret, server)


def received_within(pub_endpoint, curve, seconds):
    """How many stream messages a bare SUB socket (all topics) receives in `seconds`."""
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    if curve is not None:
        curve.apply(socket)
    socket.setsockopt(zmq.SUBSCRIBE, b"")
    socket.connect(pub_endpoint)
    count, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        if socket.poll(100, zmq.POLLIN):
            socket.recv_multipart()
            count += 1
    socket.close()
    return count


class SecureStackTests(unittest.TestCase):
    def test_known_reader_gets_prices_and_answers(self):
        curve = Curve.from_directory(KEYS, "alice", "converter")
        with Client(CONVERTER_REP, timeout=5, curve=curve) as client:
            self.assertEqual(client.call("health")["service"], "converter")
        with Subscriber(CONVERTER_PUB, CONVERTER_REP, ["price."], curve=curve) as subscriber:
            prices = [topic for topic, _ in itertools.islice(subscriber.updates(timeout=30), 1)]
        self.assertTrue(prices and prices[0].startswith("price."), prices)

    def test_known_reader_gets_prices_through_the_proxy(self):
        # The stream comes from the proxy (its key), the snapshots from the converter (its key).
        stream_curve = Curve.from_directory(KEYS, "alice", "tickwire-proxy")
        curve = Curve.from_directory(KEYS, "alice", "converter")
        snapshot = {}
        streamed = 0
        with Subscriber(PROXY_PUB, CONVERTER_REP, ["price."], curve=curve, stream_curve=stream_curve,
                        on_snapshot=lambda state: snapshot.setdefault("size", len(state))) as subscriber:
            for index, (topic, _) in enumerate(subscriber.updates(timeout=30)):
                self.assertTrue(topic.startswith("price."), topic)
                streamed = index + 1 - snapshot.get("size", 0)
                if streamed >= 5:
                    break
            snapshots = subscriber.snapshots
        self.assertGreaterEqual(streamed, 5, "prices streamed through the proxy after the snapshot")
        self.assertEqual(snapshots, 1, "no re-synchronisation: the proxy's stream kept the subscriber in step")
        # The converter's key is not the proxy's: a subscriber expecting it there gets nothing.
        self.assertEqual(received_within(PROXY_PUB, curve, REFUSED_WAIT), 0)

    def test_unknown_key_gets_nothing(self):
        curve = unknown_curve("converter")
        with Client(CONVERTER_REP, timeout=REFUSED_WAIT, retries=0, curve=curve) as client, self.assertRaises(Unreachable):
            client.call("health")
        self.assertEqual(received_within(CONVERTER_PUB, curve, REFUSED_WAIT), 0)

    def test_plain_client_gets_nothing(self):
        with Client(CONVERTER_REP, timeout=REFUSED_WAIT, retries=0) as client, self.assertRaises(Unreachable):
            client.call("health")
        self.assertEqual(received_within(CONVERTER_PUB, None, REFUSED_WAIT), 0)

    def test_reader_cannot_add_a_trade(self):
        with Client(PORTFOLIO_REP, timeout=5, curve=Curve.from_directory(KEYS, "alice", "portfolio")) as reader:
            with self.assertRaises(RPCError) as refused:
                reader.call("trades.add", trade())
            self.assertEqual(refused.exception.code, FORBIDDEN)
            self.assertIn("writers", refused.exception.message)
            self.assertIsInstance(reader.call("trades.list"), list)

    def test_writer_can_add_a_trade(self):
        with Client(PORTFOLIO_REP, timeout=5, curve=Curve.from_directory(KEYS, "bob", "portfolio")) as writer:
            added = writer.call("trades.add", trade())
            self.assertEqual(added["asset"], "BTC")
            self.assertIn(added["id"], [item["id"] for item in writer.call("trades.list")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
