"""Benchmark 2 peer: publish-to-decode latency at a steady rate, pyzmq + orjson, two processes.

The publisher sleeps to absolute deadlines (timer slack 1 us, as the Swift side), stores
CLOCK_MONOTONIC just before encoding each message in shared memory; the subscriber decodes
into typed values and takes now - that time. The first second is warm-up and dropped.
"""

import argparse
import multiprocessing as mp
import time
from datetime import datetime

import orjson
import zmq

from common import SAMPLE_QUOTES, TOPICS, Envelope, Quote, emit, percentiles, start_publisher, set_timer_slack_1us
from bus_throughput import envelope_body


def subscriber(port, count, sent, ready, out):
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"quote.")
    sub.connect(f"tcp://127.0.0.1:{port}")
    ready.set()
    latencies = []
    while True:
        topic, body = sub.recv_multipart()
        d = orjson.loads(body)
        env = Envelope(d["type"], d["seq"], datetime.fromisoformat(d["time"]), d["source"], Quote.from_json(d["data"]))
        now = time.monotonic_ns()
        latencies.append((now - sent[env.seq]) / 1000)
        if env.seq == count:
            break
    out.put(latencies)
    sub.close(linger=0)
    ctx.term()


def run(rate, seconds):
    warmup = rate
    count = rate * seconds + warmup
    sent = mp.Array("Q", count + 1, lock=False)
    proc, ctx, pub, out = start_publisher(subscriber, count, sent)
    set_timer_slack_1us()
    interval = 1_000_000_000 // rate
    deadline = time.monotonic_ns() + interval
    topic = TOPICS[0]
    for i in range(count):
        remaining = deadline - time.monotonic_ns()
        if remaining > 0:
            time.sleep(remaining / 1e9)
        deadline += interval
        sent[i + 1] = time.monotonic_ns()
        pub.send_multipart([topic, envelope_body(i + 1, SAMPLE_QUOTES[i & 63])])
    latencies = out.get()
    proc.join()
    pub.close(linger=0)
    ctx.term()
    return percentiles(latencies[warmup:])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    emit(run(args.rate, args.seconds))
