"""The Kraken feed plugin's frames, read by a SUB socket standing in for the hub's ingest endpoint."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
from decimal import Decimal
from pathlib import Path

import zmq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kraken_feed  # noqa: E402

SAMPLE = json.loads((HERE / "kraken-ticker.json").read_text())
WIRE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


class ValuesTests(unittest.TestCase):
    def test_markets_are_named_as_the_stack_names_them(self):
        self.assertEqual(kraken_feed.market("XXBTZUSD"), ("BTC", "USD"))
        self.assertEqual(kraken_feed.market("XXMRZUSD"), ("XMR", "USD"))
        self.assertEqual(kraken_feed.market("XLTCZUSD"), ("LTC", "USD"))
        self.assertEqual(kraken_feed.market("EOSUSD"), ("EOS", "USD"))
        self.assertIsNone(kraken_feed.market("XXDGXXBT"))

    def test_quote_carries_the_recorded_decimals(self):
        values = {topic: data for topic, _, data in kraken_feed.values("kraken", SAMPLE, "2026-11-26T12:00:00.000Z")}
        xmr = values["quote.kraken.XMR-USD"]
        self.assertEqual(xmr["last"], "116.41000000")
        self.assertEqual((xmr["bid"], xmr["ask"]), ("116.41000000", "116.66000000"))
        self.assertEqual((xmr["high"], xmr["low"], xmr["open"]), ("117.13000000", "111.90000000", "114.80000000"))
        self.assertEqual(xmr["volume"], "4972.87900067")
        self.assertEqual(Decimal(xmr["change24h"]), Decimal("1.61"))
        self.assertEqual(xmr["changePercent24h"], "1.4024")
        self.assertEqual(xmr["market"], {"base": "XMR", "quote": "USD"})
        self.assertEqual(values["coin.kraken.XMR"], {"id": "monero", "symbol": "XMR", "name": "Monero", "image": ""})
        self.assertEqual(sorted(values), [
            "coin.kraken.BTC", "coin.kraken.EOS", "coin.kraken.LTC", "coin.kraken.XMR",
            "quote.kraken.BTC-USD", "quote.kraken.EOS-USD", "quote.kraken.LTC-USD", "quote.kraken.XMR-USD"])
        for data in values.values():
            for key, value in data.items():
                self.assertNotIsInstance(value, float, f"{key} is a float: money is a decimal string")


class FramesTests(unittest.TestCase):
    """The plugin run as a process against a bound SUB socket, as the hub binds its ingest endpoint."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="tickwire-python-feed-")
        self.endpoint = f"ipc://{self.folder}/ingest"
        self.context = zmq.Context()
        self.hub = self.context.socket(zmq.SUB)
        self.hub.setsockopt(zmq.SUBSCRIBE, b"")
        self.hub.setsockopt(zmq.RCVTIMEO, 5000)
        self.hub.bind(self.endpoint)
        self.plugin = subprocess.Popen([sys.executable, str(HERE / "kraken_feed.py"), "--ingest", self.endpoint,
                                        "--name", "kraken2", "--interval", "0.2"],
                                       stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))

    def tearDown(self):
        self.plugin.kill()
        self.plugin.wait()
        self.hub.close()
        self.context.term()

    def receive(self, count):
        messages = []
        while len(messages) < count:
            frames = self.hub.recv_multipart()
            self.assertEqual(len(frames), 2, "two frames: topic and envelope")
            messages.append((frames[0].decode(), json.loads(frames[1])))
        return messages

    def test_frames_are_numbered_envelopes_with_heartbeats(self):
        messages = self.receive(40)
        seen = {}
        for topic, envelope in messages:
            self.assertEqual(set(envelope), {"version", "type", "seq", "time", "source", "data"})
            self.assertEqual(envelope["version"], 1)
            self.assertEqual(envelope["source"], "kraken2")
            self.assertEqual(envelope["type"], topic.split(".")[0])
            self.assertEqual(topic.split(".")[1], "kraken2", "the topic's feed is the envelope's source")
            self.assertRegex(envelope["time"], WIRE_TIME)
            if topic in seen:
                self.assertEqual(envelope["seq"], seen[topic] + 1, f"{topic}: one more per message")
            seen[topic] = envelope["seq"]
        self.assertEqual(set(seen), {
            "heartbeat.kraken2", "coin.kraken2.BTC", "coin.kraken2.EOS", "coin.kraken2.LTC", "coin.kraken2.XMR",
            "quote.kraken2.BTC-USD", "quote.kraken2.EOS-USD", "quote.kraken2.LTC-USD", "quote.kraken2.XMR-USD"})
        beats = [envelope["data"] for topic, envelope in messages if topic == "heartbeat.kraken2"]
        self.assertGreaterEqual(len(beats), 3)
        self.assertEqual({beat["service"] for beat in beats}, {"kraken2"})
        self.assertEqual(len({beat["instance"] for beat in beats}), 1, "one instance per run")
        self.assertEqual(beats[0]["intervalMilliseconds"], 200)
        quote = next(envelope["data"] for topic, envelope in messages if topic == "quote.kraken2.BTC-USD")
        self.assertEqual((quote["source"], quote["last"]), ("kraken2", "10724.80000"))

    def test_a_restart_is_a_new_instance(self):
        beats = [e for t, e in self.receive(60) if t == "heartbeat.kraken2"]
        first, last_seq = beats[0]["data"]["instance"], beats[-1]["seq"]
        self.assertGreaterEqual(last_seq, 4)
        self.plugin.kill()
        self.plugin.wait()
        self.plugin = subprocess.Popen([sys.executable, str(HERE / "kraken_feed.py"), "--ingest", self.endpoint,
                                        "--name", "kraken2", "--interval", "0.2"], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            topic, envelope = self.receive(1)[0]
            if topic == "heartbeat.kraken2" and envelope["data"]["instance"] != first:
                # Numbered afresh (its first heartbeat or two may go out before the connection is up).
                self.assertLessEqual(envelope["seq"], 2)
                return
        self.fail("no heartbeat of a new instance")


if __name__ == "__main__":
    unittest.main()
