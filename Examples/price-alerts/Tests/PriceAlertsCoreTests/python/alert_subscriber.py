"""Waits for one alert through tickwire.Subscriber (the Clone pattern) and prints its envelope.

Usage: alert_subscriber.py PUB REP TOPIC TIMEOUT, with clients/python/src on PYTHONPATH
(or the tickwire package installed: pip install ./clients/python).
Subscribes to "alert." at PUB (snapshots from REP), prints the first envelope on TOPIC as one
JSON line {"topic", "seq", "type", "time", "source", "data"} and exits 0; exits 1 when none
came within TIMEOUT seconds.
"""
import sys
import time

from tickwire import Subscriber, dumps

pub, rep, topic, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
deadline = time.monotonic() + timeout
with Subscriber(pub, rep, ["alert."]) as subscriber:
    while time.monotonic() < deadline:
        for seen, envelope in subscriber.poll(timeout=max(0.0, deadline - time.monotonic())):
            if seen == topic:
                print(dumps({"topic": seen, **envelope}), flush=True)
                sys.exit(0)
print(f"no {topic} within {timeout} s (snapshots: {subscriber.snapshots})", file=sys.stderr)
sys.exit(1)
