"""Benchmark 2 peer: a `convert` JSON-RPC round trip, pyzmq + orjson + decimal, two processes.

Server: ROUTER, orjson, the rate derived per call along the shortest path (as RateGraph.convert
does), amount * rate rounded half-even to cents. Client: REQ, sequential calls, 500 warm-up.
"""

import argparse
import multiprocessing as mp
import time
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

import orjson
import zmq

from common import emit, free_port, percentiles
from conversion import CENT, derived_rate


def server(port, ready):
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.bind(f"tcp://127.0.0.1:{port}")
    ready.set()
    with localcontext(Context(prec=80, rounding=ROUND_HALF_EVEN)):
        while True:
            frames = sock.recv_multipart()
            request = orjson.loads(frames[-1])
            if request["method"] == "stop":
                sock.send_multipart(frames[:-1] + [b'{"jsonrpc":"2.0","id":0,"result":null}'])
                break
            params = request["params"]
            rate = derived_rate(params["from"], params["to"])
            amount = (Decimal(params["amount"]) * rate.numerator / rate.denominator).quantize(CENT)
            reply = orjson.dumps({"jsonrpc": "2.0", "id": request["id"],
                                  "result": {"amount": str(amount), "currency": params["to"]}})
            sock.send_multipart(frames[:-1] + [reply])
    sock.close(linger=0)
    ctx.term()


def run(calls):
    port = free_port()
    ready = mp.Event()
    proc = mp.Process(target=server, args=(port, ready))
    proc.start()
    ready.wait()
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    req.connect(f"tcp://127.0.0.1:{port}")
    warmup = 500
    micros, last = [], None
    for i in range(calls + warmup):
        params = {"amount": str(Decimal(129_899 + i % 1000).scaleb(-2)), "from": ["USD", "AUD", "SEK", "GBP"][i & 3],
                  "to": "EUR"}
        start = time.perf_counter_ns()
        req.send(orjson.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "convert", "params": params}))
        reply = orjson.loads(req.recv())
        result = reply["result"]
        last = (Decimal(result["amount"]), result["currency"])
        elapsed = time.perf_counter_ns() - start
        if i >= warmup:
            micros.append(elapsed / 1000)
    req.send(orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "stop"}))
    req.recv()
    proc.join()
    req.close(linger=0)
    ctx.term()
    out = percentiles(micros)
    out["last"] = f"{last[0]} {last[1]}"
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    emit(run(args.calls))
