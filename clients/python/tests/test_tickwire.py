"""Tests of the tickwire package's Client and Subscriber (unittest, pyzmq), run against the installed package:
`clients/python/test-installed.sh`, or `python3 -m unittest discover -s clients/python/tests` where it is installed.

The fake-publisher and client tests need nothing running. The stack tests run only with
TICKWIRE_TEST_STACK=1, against the endpoints in TICKWIRE_CONVERTER_PUB, TICKWIRE_CONVERTER_REP,
TICKWIRE_RATES_FETCHER_PUB and TICKWIRE_RATES_FETCHER_REP (defaults as in docs/protocol.md).
"""
import decimal
import os
import queue
import re
import shutil
import tempfile
import threading
import time
import unittest
import uuid

import zmq

from tickwire import Client, RPCError, Subscriber, Unreachable, dumps, loads

DECIMAL = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
STACK = os.environ.get("TICKWIRE_TEST_STACK")
SKIP_STACK = "set TICKWIRE_TEST_STACK=1 (and TICKWIRE_* endpoints) to test against a running stack"


def endpoint(variable, default):
    return os.environ.get(variable) or default


def envelope(seq, data, kind="price"):
    return {"type": kind, "seq": seq, "time": "2026-11-23T03:57:21.735Z", "source": "fake", "data": data}


class FakePublisher(threading.Thread):
    """A publisher in a thread: a PUB with heartbeats and a ROUTER answering `snapshot`.

    The sockets belong to the thread; tests change it through ``do`` (run there, in order).
    """

    def __init__(self, directory, interval=0.1):
        super().__init__(daemon=True)
        self.pub_endpoint, self.rep_endpoint = f"ipc://{directory}/pub", f"ipc://{directory}/rep"
        self.interval, self.instance, self.topics = interval, str(uuid.uuid4()), {}
        self.commands, self.stopping, self.ready = queue.Queue(), threading.Event(), threading.Event()
        self.silent_until = 0.0
        self.beats = 0
        self.retracted, self.lists_retracted = {}, True

    def do(self, command):
        """Runs `command(pub_socket)` on the publisher's thread and waits for it."""
        done = threading.Event()
        self.commands.put((command, done))
        assert done.wait(5), "the fake publisher is stuck"

    def publish(self, topic, seq, data, send=True):
        """Sets the topic's value at `seq`; sends it unless `send` is False (a lost message)."""
        body = dumps(envelope(seq, data))

        def command(pub):
            self.topics[topic] = (seq, body)
            self.retracted.pop(topic, None)
            if send:
                pub.send_multipart([topic.encode(), body.encode()])
        self.do(command)

    def retract(self, topic, seq):
        """Retracts `topic` at `seq`: sends a `deleted` envelope and keeps only the seq (listed in snapshots'
        `retracted` unless `lists_retracted` is False, as an older publisher)."""
        body = dumps(envelope(seq, None, "deleted"))

        def command(pub):
            self.topics.pop(topic, None)
            self.retracted[topic] = seq
            pub.send_multipart([topic.encode(), body.encode()])
        self.do(command)

    def send_raw(self, frames):
        self.do(lambda pub: pub.send_multipart(frames))

    def restart(self, topics):
        """A new instance with `topics` ({topic: (seq, data)}); no stream message says so but the heartbeat."""
        def command(_):
            self.instance = str(uuid.uuid4())
            self.topics = {topic: (seq, dumps(envelope(seq, data))) for topic, (seq, data) in topics.items()}
        self.do(command)

    def silence(self, seconds):
        def command(_):
            self.silent_until = time.monotonic() + seconds
        self.do(command)

    def run(self):
        context = zmq.Context()
        pub, router = context.socket(zmq.PUB), context.socket(zmq.ROUTER)
        pub.bind(self.pub_endpoint)
        router.bind(self.rep_endpoint)
        self.ready.set()
        next_beat = time.monotonic()
        while not self.stopping.is_set():
            if router.poll(10):
                self.answer(router, router.recv_multipart())
            while not self.commands.empty():
                command, done = self.commands.get()
                command(pub)
                done.set()
            now = time.monotonic()
            if now >= next_beat:
                next_beat = now + self.interval
                if now >= self.silent_until:
                    self.beats += 1
                    beat = envelope(self.beats, {"service": "fake", "instance": self.instance, "topics": len(self.topics),
                                                 "dropped": 0, "intervalMilliseconds": int(self.interval * 1000)}, "heartbeat")
                    pub.send_multipart([b"heartbeat.fake", dumps(beat).encode()])
        pub.close(0)
        router.close(0)
        context.term()

    def answer(self, router, frames):
        delimiter = frames.index(b"")
        request = loads(frames[delimiter + 1])
        method, params = request.get("method"), request.get("params") or {}
        if method == "mute":
            return  # never answers
        if method == "snapshot":
            entries = [{"topic": topic, "seq": seq, "body": body} for topic, (seq, body) in sorted(self.topics.items())
                       if topic.startswith(params.get("prefix", ""))]
            result = {"publisher": "fake", "instance": self.instance, "entries": entries}
            retracted = {topic: seq for topic, seq in sorted(self.retracted.items()) if topic.startswith(params.get("prefix", ""))}
            if retracted and self.lists_retracted:
                result["retracted"] = retracted
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        elif method == "echo":
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": params}
        elif method == "trace":  # the request's trace context members, as the server read them
            reply = {"jsonrpc": "2.0", "id": request["id"],
                     "result": {key: request[key] for key in ("traceparent", "tracestate") if key in request}}
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"],
                     "error": {"code": -32601, "message": f"method not found: {method}", "data": {"method": method}}}
        router.send_multipart(frames[:delimiter + 1] + [dumps(reply).encode()])

    def stop(self):
        self.stopping.set()
        self.join(5)


def take(subscriber, count, timeout=5.0):
    """The next `count` changes of `subscriber`, failing after `timeout` seconds."""
    changes, deadline = [], time.monotonic() + timeout
    while len(changes) < count and time.monotonic() < deadline:
        changes += subscriber.poll(deadline - time.monotonic())
    if len(changes) < count:
        raise AssertionError(f"expected {count} changes within {timeout}s, got {changes}")
    return changes


class FakePublisherTests(unittest.TestCase):
    """The Clone pattern against a fake publisher: no stack needed."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="tickwire-py-")
        self.fake = FakePublisher(self.directory)
        self.fake.start()
        self.assertTrue(self.fake.ready.wait(5))
        self.fake.publish("price.BTC.USD", 1, {"asset": "BTC", "currency": "USD", "price": "100.5"}, send=False)
        self.subscriber = Subscriber(self.fake.pub_endpoint, self.fake.rep_endpoint, ["price."], heartbeat_timeout=1.0,
                                     client=Client(self.fake.rep_endpoint, timeout=0.5, retries=1))

    def tearDown(self):
        self.subscriber.close()
        self.fake.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def synchronized(self):
        [(topic, first)] = take(self.subscriber, 1)
        self.assertEqual((topic, first["seq"]), ("price.BTC.USD", 1))
        self.assertEqual(self.subscriber.snapshots, 1)
        return first

    def test_snapshot_then_updates_with_decimals(self):
        first = self.synchronized()
        self.assertEqual(first["data"]["price"], "100.5")
        self.fake.publish("price.BTC.USD", 2, {"price": "101"})
        self.fake.publish("price.ETH.USD", 1, {"price": "3"})
        changes = take(self.subscriber, 2)
        self.assertEqual([(topic, env["seq"]) for topic, env in changes], [("price.BTC.USD", 2), ("price.ETH.USD", 1)])
        self.assertEqual(self.subscriber.seqs, {"price.BTC.USD": 2, "price.ETH.USD": 1})
        self.assertEqual((self.subscriber.gaps, self.subscriber.resyncs), (0, 0))
        self.fake.send_raw([b"price.BTC.USD", dumps(envelope(3, {"volume": 1.25})).encode()])
        [(_, third)] = take(self.subscriber, 1)
        self.assertEqual(third["data"]["volume"], decimal.Decimal("1.25"))  # never a float

    def test_gap_resyncs_from_a_snapshot(self):
        self.synchronized()
        self.fake.publish("price.BTC.USD", 2, {"price": "2"})
        self.assertEqual(take(self.subscriber, 1)[0][1]["seq"], 2)
        self.fake.publish("price.BTC.USD", 3, {"price": "3"}, send=False)  # lost on the way
        self.fake.publish("price.BTC.USD", 4, {"price": "4"})
        [(topic, fourth)] = take(self.subscriber, 1)
        self.assertEqual((topic, fourth["seq"], fourth["data"]["price"]), ("price.BTC.USD", 4, "4"))
        self.assertEqual((self.subscriber.gaps, self.subscriber.resyncs), (1, 1))
        self.fake.publish("price.BTC.USD", 5, {"price": "5"})
        self.assertEqual(take(self.subscriber, 1)[0][1]["seq"], 5)

    def late_subscriber(self):
        """A second subscriber of the fake publisher, synchronized: its snapshot holds price.BTC.USD alone."""
        late = Subscriber(self.fake.pub_endpoint, self.fake.rep_endpoint, ["price."], heartbeat_timeout=1.0,
                          client=Client(self.fake.rep_endpoint, timeout=0.5, retries=1))
        self.addCleanup(late.close)
        self.assertEqual([topic for topic, _ in take(late, 1)], ["price.BTC.USD"])
        return late

    def test_a_retracted_topic_returns_without_a_gap_after_a_late_snapshot(self):
        self.synchronized()
        self.fake.publish("price.ETH.USD", 1, {"price": "3"})
        self.fake.retract("price.ETH.USD", 2)
        [(_, added), (topic, removed)] = take(self.subscriber, 2)
        self.assertEqual((added["seq"], topic, removed["type"], removed["seq"], removed["data"]),
                         (1, "price.ETH.USD", "deleted", 2, None))
        late = self.late_subscriber()
        self.assertEqual((set(late.state), late.seqs), ({"price.BTC.USD"}, {"price.BTC.USD": 1, "price.ETH.USD": 2}))
        self.fake.publish("price.ETH.USD", 3, {"price": "3.5"})
        for subscriber in (self.subscriber, late):
            [(topic, back)] = take(subscriber, 1)
            self.assertEqual((topic, back["seq"], back["data"]["price"]), ("price.ETH.USD", 3, "3.5"))
            self.assertEqual((subscriber.snapshots, subscriber.gaps, subscriber.resyncs), (1, 0, 0))
            self.assertEqual(subscriber.seqs, {"price.BTC.USD": 1, "price.ETH.USD": 3})

    def test_a_snapshot_without_retracted_reads_as_none(self):
        self.synchronized()
        self.fake.lists_retracted = False  # an older publisher: its snapshots have no `retracted`
        self.fake.publish("price.ETH.USD", 1, {"price": "3"})
        self.fake.retract("price.ETH.USD", 2)
        late = self.late_subscriber()
        self.assertEqual(late.seqs, {"price.BTC.USD": 1})
        self.fake.publish("price.ETH.USD", 3, {"price": "3.5"})
        # Seq 3 of a topic held at 0 is a gap: the value comes with a new snapshot, as before `retracted`.
        self.assertEqual([(topic, env["seq"]) for topic, env in take(late, 1)], [("price.BTC.USD", 1), ("price.ETH.USD", 3)])
        self.assertEqual((late.gaps, late.resyncs), (1, 1))

    def test_new_instance_resyncs(self):
        self.synchronized()
        old = self.subscriber.instance
        self.fake.restart({"price.BTC.USD": (1, {"price": "99"})})
        [(topic, restarted)] = take(self.subscriber, 1)
        self.assertEqual((topic, restarted["seq"], restarted["data"]["price"]), ("price.BTC.USD", 1, "99"))
        self.assertNotEqual(self.subscriber.instance, old)
        self.assertEqual((self.subscriber.resyncs, self.subscriber.gaps), (1, 0))

    def test_silence_resyncs(self):
        self.synchronized()
        self.fake.silence(1.6)
        self.fake.publish("price.BTC.USD", 2, {"price": "2"}, send=False)  # lost while silent
        changes = take(self.subscriber, 1, timeout=5)
        self.assertEqual(changes[0][1]["seq"], 2)
        self.assertGreaterEqual(self.subscriber.resyncs, 1)
        self.assertEqual(self.subscriber.gaps, 0)

    def test_malformed_messages_are_counted_and_skipped(self):
        self.synchronized()
        for frames in ([b"price.BTC.USD", b"{not json"], [b"price.BTC.USD"], [b"price.\xff", b"{}"],
                       [b"price.BTC.USD", b'{"seq": "2"}'], [b"price.BTC.USD", b'{"seq": 2, "data": NaN}'],
                       [b"price.BTC.USD", b"[1, 2]"], [b"heartbeat.fake", b'{"seq": 1, "data": {}}'],
                       [b"price.BTC.USD", b"\xff\xfe"], [b"price.BTC.USD", b"{}", b"extra"]):
            self.fake.send_raw(frames)
        self.fake.publish("price.BTC.USD", 2, {"price": "2"})
        [(_, second)] = take(self.subscriber, 1)
        self.assertEqual(second["seq"], 2)
        self.assertEqual(self.subscriber.malformed, 9)
        self.assertEqual((self.subscriber.gaps, self.subscriber.resyncs), (0, 0))

    def test_updates_generator_ends_after_timeout(self):
        self.synchronized()
        start = time.monotonic()
        self.assertEqual(list(self.subscriber.updates(timeout=0.3)), [])
        self.assertLess(time.monotonic() - start, 1.0)

    def test_client_errors_and_retries(self):
        with Client(self.fake.rep_endpoint, timeout=0.3, retries=1) as client:
            self.assertEqual(client.call("echo", {"amount": decimal.Decimal("1.10")}), {"amount": "1.10"})
            with self.assertRaises(RPCError) as raised:
                client.call("nope")
            self.assertEqual((raised.exception.code, raised.exception.data), (-32601, {"method": "nope"}))
            start = time.monotonic()
            with self.assertRaises(Unreachable):
                client.call("mute")
            self.assertAlmostEqual(time.monotonic() - start, 0.6, delta=0.4)
            self.assertEqual(client.call("echo", [1]), [1], "the client works again after a lost request")

    def test_a_call_carries_its_trace_context(self):
        traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        with Client(self.fake.rep_endpoint, timeout=2.0) as client:
            self.assertEqual(client.call("trace"), {}, "no trace context unless one is given")
            self.assertEqual(client.call("trace", traceparent=traceparent), {"traceparent": traceparent})
            self.assertEqual(client.call("trace", {"a": 1}, traceparent=traceparent, tracestate="tickwire=1"),
                             {"traceparent": traceparent, "tracestate": "tickwire=1"})
            self.assertEqual(client.call("trace", tracestate="tickwire=1"), {}, "no tracestate without a traceparent")


class ClientTests(unittest.TestCase):
    def test_nobody_listening_is_unreachable_in_time(self):
        directory = tempfile.mkdtemp(prefix="tickwire-py-")
        try:
            client = Client(f"ipc://{directory}/nobody", timeout=0.3, retries=2)
            start = time.monotonic()
            with self.assertRaises(Unreachable) as raised:
                client.call("health")
            elapsed = time.monotonic() - start
            self.assertIn("nobody", str(raised.exception))
            self.assertIn("health", str(raised.exception))
            self.assertEqual(raised.exception.attempts, 3)
            self.assertAlmostEqual(elapsed, 0.9, delta=0.5)
            client.close()
        finally:
            shutil.rmtree(directory, ignore_errors=True)


@unittest.skipUnless(STACK, SKIP_STACK)
class StackTests(unittest.TestCase):
    """Against a running stack (rates-fetcher and converter, mock feeds are fine)."""

    converter_pub = endpoint("TICKWIRE_CONVERTER_PUB", "tcp://127.0.0.1:7202")
    converter_rep = endpoint("TICKWIRE_CONVERTER_REP", "tcp://127.0.0.1:7201")
    fetcher_pub = endpoint("TICKWIRE_RATES_FETCHER_PUB", "tcp://127.0.0.1:7101")
    fetcher_rep = endpoint("TICKWIRE_RATES_FETCHER_REP", "tcp://127.0.0.1:7102")

    def client(self, rep):
        return Client(rep, timeout=5.0, retries=1)

    def test_convert_gives_a_decimal_string(self):
        with self.client(self.converter_rep) as client:
            result = self.eventually(lambda: client.call("convert", {"amount": "10", "from": "EUR", "to": "USD"}))
            self.assertIsInstance(result["amount"], str)
            self.assertRegex(result["amount"], DECIMAL)
            self.assertGreater(decimal.Decimal(result["amount"]), 0)
            self.assertEqual(result["currency"], "USD")
            with self.assertRaises(RPCError) as raised:
                client.call("convert", {"amount": "10", "from": "XYZ", "to": "USD"})
            self.assertTrue(-32768 <= raised.exception.code <= -32000, raised.exception)

    def test_converter_prices_snapshot_then_updates(self):
        with Subscriber(self.converter_pub, self.converter_rep, ["price."],
                        client=self.client(self.converter_rep)) as subscriber:
            deadline = time.monotonic() + 30
            while not subscriber.snapshots and time.monotonic() < deadline:
                subscriber.poll(deadline - time.monotonic())
            live = []
            while len(live) < 3 and time.monotonic() < deadline:
                before = subscriber.snapshots
                changes = subscriber.poll(deadline - time.monotonic())
                if subscriber.snapshots == before:  # not a snapshot's entries
                    live += changes
            self.assertGreaterEqual(subscriber.snapshots, 1, "no snapshot")
            self.assertTrue(subscriber.state, "the converter's snapshot has no prices")
            self.assertGreaterEqual(len(live), 1, "no live update after the snapshot")
            for topic, held in subscriber.state.items():
                self.assertRegex(held["data"]["price"], DECIMAL)
            with self.client(self.converter_rep) as client:
                fresh = client.call("snapshot", {"prefix": "price."})
            entries = {entry["topic"]: entry for entry in fresh["entries"]}
            self.assertEqual(fresh["instance"], subscriber.instance)
            for topic, seq in subscriber.seqs.items():
                self.assertIn(topic, entries)
                self.assertGreaterEqual(entries[topic]["seq"], seq, topic)
                if entries[topic]["seq"] == seq:
                    self.assertEqual(loads(entries[topic]["body"]), subscriber.state[topic], topic)
            self.assertEqual(subscriber.gaps, 0)
            self.assertEqual(subscriber.malformed, 0)

    def test_fetcher_quotes(self):
        with self.client(self.fetcher_rep) as client:
            self.assertIn(self.eventually(lambda: client.call("health"))["status"], ("ok", "degraded"))
        with Subscriber(self.fetcher_pub, self.fetcher_rep, ["quote.", "status."],
                        client=self.client(self.fetcher_rep)) as subscriber:
            changes = take(subscriber, 1, timeout=15)
            self.assertTrue(any(topic.startswith("quote.") for topic in subscriber.state), changes)
            self.assertTrue(any(topic.startswith("status.") for topic in subscriber.state))
            for topic, held in subscriber.state.items():
                if topic.startswith("quote."):
                    self.assertRegex(held["data"]["last"], DECIMAL)

    def eventually(self, call, within=30.0):
        """`call()`'s result once it stops failing (services start in the background)."""
        deadline = time.monotonic() + within
        while True:
            try:
                return call()
            except (Unreachable, RPCError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
