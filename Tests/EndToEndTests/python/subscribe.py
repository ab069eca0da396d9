"""A Tickwire stream subscriber in a few lines of Python (pyzmq), as the README shows it.

Usage: subscribe.py ENDPOINT PREFIX COUNT
Prints COUNT messages under PREFIX as JSON lines: {"topic", "seq", "type", "source", "data"}.
"""
import json
import sys

import zmq

endpoint, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
socket = zmq.Context().socket(zmq.SUB)
socket.connect(endpoint)
socket.setsockopt_string(zmq.SUBSCRIBE, prefix)
socket.setsockopt(zmq.RCVTIMEO, 30000)
for _ in range(count):
    topic, body = socket.recv_multipart()
    envelope = json.loads(body)
    print(json.dumps({"topic": topic.decode(), **envelope}), flush=True)
