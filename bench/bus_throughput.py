"""Benchmark 1 peer: pyzmq + orjson, one publisher and one subscriber process, tcp loopback.

  encoded: the publisher numbers each topic, builds the envelope, encodes it with orjson
           (Decimal money as strings) and keeps the topic's last body (like Bus's Publisher);
           the subscriber decodes every message into typed values (Envelope, Quote, Decimal, datetime).
  raw:     the same bytes, prebuilt, with no encoding or decoding (the libzmq limit).

Lossless (HWM 0 on both sides); rate = messages / (first send .. last receive), CLOCK_MONOTONIC.
"""

import argparse
import time
from datetime import datetime

import orjson
import zmq

from common import SAMPLE_QUOTES, TOPICS, Envelope, Quote, emit, start_publisher, wire_time


def envelope_body(seq, quote):
    return orjson.dumps({"type": "quote", "seq": seq, "time": wire_time(), "source": "bitso", "data": quote},
                        default=str)


def subscriber(port, count, mode, ready, out):
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.RCVHWM, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"quote.")
    sub.connect(f"tcp://127.0.0.1:{port}")
    ready.set()
    received = 0
    checksum = 0
    if mode == "encoded":
        while received < count:
            topic, body = sub.recv_multipart()
            d = orjson.loads(body)
            env = Envelope(d["type"], d["seq"], datetime.fromisoformat(d["time"]), d["source"],
                           Quote.from_json(d["data"]))
            checksum += env.seq
            received += 1
    else:
        while received < count:
            frames = sub.recv_multipart()
            if len(frames) == 2:
                received += 1
    out.put((time.monotonic(), received))
    sub.close(linger=0)
    ctx.term()


def run(mode, count):
    proc, ctx, pub, out = start_publisher(subscriber, count, mode)
    raw_frames = [TOPICS[0], envelope_body(123456, SAMPLE_QUOTES[0])]
    start = time.monotonic()
    if mode == "encoded":
        seqs, retained = {}, {}
        for i in range(count):
            topic = TOPICS[i & 7]
            seq = seqs.get(topic, 0) + 1
            seqs[topic] = seq
            body = envelope_body(seq, SAMPLE_QUOTES[i & 63])
            retained[topic] = body
            pub.send_multipart([topic, body])
    else:
        for _ in range(count):
            pub.send_multipart(raw_frames)
    end, received = out.get()
    proc.join()
    pub.close(linger=0)
    ctx.term()
    return {"mode": mode, "messages_per_second": received / (end - start), "received": received,
            "body_bytes": len(raw_frames[1])}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["encoded", "raw"])
    parser.add_argument("--count", type=int, default=200_000)
    args = parser.parse_args()
    emit(run(args.mode, args.count))
