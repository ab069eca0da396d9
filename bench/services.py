"""Benchmark 5 (partial): the real service executables, each its own process.

For rates-fetcher (mock feeds, --period bitso=1), converter, portfolio (:memory:) and presenter,
started one after another on free loopback ports: the time from exec to the first answer of the
JSON-RPC `health` method (REQ, 20 ms per attempt, Lazy Pirate), and the RSS (VmRSS) after all
four have idled for a few seconds. Then for --seconds: `price.` updates/s on the converter's
stream and `quote.` updates/s on the fetcher's, with publish-to-receive latency from each
envelope's `time` (milliseconds on the wire, so latency is only to the millisecond).

Then the flat-out pipeline: rates-fetcher with `--period bitso=0` (its mock Bitso feed polls again as
soon as a poll is published), converter and presenter, each its own process. For --seconds it reads
the presenter's own counter of received stream messages (`tickwire_bus_received_total`, through its
`metrics` method) and the fetcher's and converter's published counters, the presenter's RSS at the
start and the end (state per topic is bounded, so it must not grow), and the latency from a quote's
creation in the fetcher (`quoteTime`) to a `price.BTC.USD` reaching a subscriber beside the presenter
(one topic, so the Python subscriber itself never queues; milliseconds on the wire).
"""

import argparse
import select
import os
import signal
import subprocess
import time
from datetime import datetime, timezone

import orjson
import zmq

from common import emit, free_port


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def wait_healthy(ctx, endpoint, deadline_s=10.0):
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        req = ctx.socket(zmq.REQ)
        req.setsockopt(zmq.LINGER, 0)
        req.connect(endpoint)
        req.send(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "health"}))
        if req.poll(20):
            reply = orjson.loads(req.recv())
            req.close()
            return reply
        req.close()
    return None


def rpc(ctx, endpoint, method, timeout_ms=2000):
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(endpoint)
    req.send(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method}))
    reply = orjson.loads(req.recv()) if req.poll(timeout_ms) else None
    req.close()
    return reply


def scrape(ctx, endpoint):
    """A service's Prometheus text, from its `metrics` method ("" if it does not answer)."""
    return (rpc(ctx, endpoint, "metrics") or {}).get("result", "")


def metric_lines(text, name):
    """The lines of every series of the metric `name` in Prometheus text."""
    return [line for line in text.splitlines() if line.startswith(name + "{") or line.startswith(name + " ")]


def counter(text, name):
    """The sum of every series of the counter `name` in Prometheus text."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in metric_lines(text, name))


def histogram_quantile(text, name, q):
    """The upper bound of the bucket holding quantile `q` of the histogram `name` in Prometheus text (every
    series together), in the histogram's unit, with the observation count; None when it is empty."""
    buckets = {}
    for line in metric_lines(text, name + "_bucket"):
        bound = line.split('le="', 1)[1].split('"', 1)[0]
        buckets[float(bound)] = buckets.get(float(bound), 0) + float(line.rsplit(" ", 1)[1])
    total = buckets.get(float("inf"), 0)
    if not total:
        return None, 0
    return next(bound for bound, count in sorted(buckets.items()) if count >= q * total), int(total)


def environment():
    """The services' endpoints on free loopback ports, as the environment that sets them."""
    ports = {k: free_port() for k in ["fp", "fr", "cr", "cp", "pr", "pp", "sr", "http"]}
    return dict(os.environ,
                TICKWIRE_RATES_FETCHER_PUB=f"tcp://127.0.0.1:{ports['fp']}",
                TICKWIRE_RATES_FETCHER_REP=f"tcp://127.0.0.1:{ports['fr']}",
                TICKWIRE_CONVERTER_REP=f"tcp://127.0.0.1:{ports['cr']}",
                TICKWIRE_CONVERTER_PUB=f"tcp://127.0.0.1:{ports['cp']}",
                TICKWIRE_PORTFOLIO_REP=f"tcp://127.0.0.1:{ports['pr']}",
                TICKWIRE_PORTFOLIO_PUB=f"tcp://127.0.0.1:{ports['pp']}",
                TICKWIRE_PRESENTER_REP=f"tcp://127.0.0.1:{ports['sr']}",
                TICKWIRE_PRESENTER_HTTP=f"http://127.0.0.1:{ports['http']}",
                TICKWIRE_LOG_LEVEL="warning")


def stop(procs):
    for name, proc in reversed(procs):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for name, proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def launch(bin_dir, name, args, env, ctx, rep, procs):
    """Starts service `name` (added to `procs` to be stopped) and waits for its `health` answer on `rep`;
    returns the answer (None if none came) and the milliseconds from exec to it."""
    start = time.monotonic()
    proc = subprocess.Popen([os.path.join(bin_dir, name)] + args, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append((name, proc))
    reply = wait_healthy(ctx, rep)
    return reply, (time.monotonic() - start) * 1000


def pipeline(bin_dir, seconds):
    """Flat-out fetcher -> converter -> presenter: what reaches the presenter, per second."""
    env = environment()
    services = [
        ("rates-fetcher", ["--feeds", "mock", "--period", "bitso=0"], env["TICKWIRE_RATES_FETCHER_REP"]),
        ("converter", [], env["TICKWIRE_CONVERTER_REP"]),
        ("presenter", [], env["TICKWIRE_PRESENTER_REP"]),
    ]
    ctx = zmq.Context()
    procs = []
    try:
        for name, args, rep in services:
            launch(bin_dir, name, args, env, ctx, rep, procs)
        time.sleep(2)  # the presenter synchronises with both streams
        presenter = procs[2][1]
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.RCVHWM, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"price.BTC.USD")
        sub.connect(env["TICKWIRE_CONVERTER_PUB"])
        def counts():
            return (counter(scrape(ctx, env["TICKWIRE_PRESENTER_REP"]), "tickwire_bus_received_total"),
                    counter(scrape(ctx, env["TICKWIRE_RATES_FETCHER_REP"]), "tickwire_bus_published_total"),
                    counter(scrape(ctx, env["TICKWIRE_CONVERTER_REP"]), "tickwire_bus_published_total"))
        rss_start = rss_mb(presenter.pid)
        start, before = time.monotonic(), counts()
        latencies = []
        while time.monotonic() - start < seconds:
            if sub.poll(100):
                topic, body = sub.recv_multipart()[:2]
                quoted = datetime.fromisoformat(orjson.loads(body)["data"]["quoteTime"])
                latencies.append((datetime.now(timezone.utc) - quoted).total_seconds() * 1000)
        after, elapsed = counts(), time.monotonic() - start
        sub.close(linger=0)
        latencies.sort()
        alive = all(proc.poll() is None for _, proc in procs)
        return {"presenter_received_per_second": (after[0] - before[0]) / elapsed,
                "fetcher_published_per_second": (after[1] - before[1]) / elapsed,
                "converter_published_per_second": (after[2] - before[2]) / elapsed,
                "latency_ms_p50": latencies[len(latencies) // 2] if latencies else None,
                "latency_ms_p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else None,
                "latency_samples": len(latencies),
                "presenter_rss_mb_start": rss_start, "presenter_rss_mb_end": rss_mb(presenter.pid),
                "all_alive": alive}
    finally:
        stop(procs)
        ctx.term()


def presenter_intake(bin_dir, seconds, rate):
    """A stand-in converter (`tickwire-bench flood-prices`) publishes price.* to a real presenter, `rate`
    per second (0: flat out). Keeping up means taking every message off the wire without a gap (so without
    a re-synchronisation) while what it applies stays fresh: the presenter conflates, applying each topic's
    newest value and skipping the ones a newer value superseded before it got to them."""
    env = environment()
    procs = []
    ctx = zmq.Context()
    try:
        flood = subprocess.Popen([os.path.join(bin_dir, "tickwire-bench"), "flood-prices", env["TICKWIRE_CONVERTER_PUB"],
                                  env["TICKWIRE_CONVERTER_REP"], str(seconds), str(rate)], stdout=subprocess.PIPE, text=True)
        procs.append(("flood", flood))
        if flood.stdout.readline().strip() != "ready":
            return {"error": "the flood publisher did not start"}
        rep = env["TICKWIRE_PRESENTER_REP"]
        launch(bin_dir, "presenter", [], env, ctx, rep, procs)
        presenter = procs[-1][1]
        # The flood starts 2 s after "ready"; the presenter is up well before that.
        names = ["tickwire_presenter_applied_total", "tickwire_bus_received_total", "tickwire_bus_superseded_total"]
        start_text = scrape(ctx, rep)
        before = {name: counter(start_text, name) for name in names}
        rss_start = rss_mb(presenter.pid)
        # The presenter's memory every half second until the flood reports: it must level off.
        samples = []
        while not select.select([flood.stdout], [], [], 0.5)[0]:
            samples.append(rss_mb(presenter.pid))
        line = flood.stdout.readline()
        flood_result = orjson.loads(line) if line.strip() else {}
        end_text = scrape(ctx, rep)
        after = {name: counter(end_text, name) - before[name] for name in names}
        lag_p50, lag_count = histogram_quantile(end_text, "tickwire_bus_delivery_lag_seconds", 0.5)
        lag_p99, _ = histogram_quantile(end_text, "tickwire_bus_delivery_lag_seconds", 0.99)
        half = samples[: max(len(samples) // 2, 1)]
        return {"published_per_second": flood_result.get("published", 0) / seconds,
                "dropped_by_publisher": flood_result.get("dropped"),
                "received_per_second": after["tickwire_bus_received_total"] / seconds,
                "applied_per_second": after["tickwire_presenter_applied_total"] / seconds,
                "superseded_per_second": after["tickwire_bus_superseded_total"] / seconds,
                "gaps": counter(end_text, "tickwire_bus_gaps_total"),
                "lag_ms_p50_bucket": lag_p50 * 1000 if lag_p50 is not None else None,
                "lag_ms_p99_bucket": lag_p99 * 1000 if lag_p99 is not None else None,
                "lag_samples": lag_count,
                "presenter_rss_mb_start": rss_start,
                "presenter_rss_mb_first_half_max": max(half) if samples else None,
                "presenter_rss_mb_max": max(samples) if samples else None,
                "presenter_rss_mb_end": rss_mb(presenter.pid),
                "alive": presenter.poll() is None}
    finally:
        stop(procs)
        ctx.term()


def run(bin_dir, seconds):
    env = environment()
    services = [
        ("rates-fetcher", ["--feeds", "mock", "--period", "bitso=1"], env["TICKWIRE_RATES_FETCHER_REP"]),
        ("converter", [], env["TICKWIRE_CONVERTER_REP"]),
        ("portfolio", ["--database", ":memory:"], env["TICKWIRE_PORTFOLIO_REP"]),
        ("presenter", [], env["TICKWIRE_PRESENTER_REP"]),
    ]
    ctx = zmq.Context()
    procs, result = [], {"services": {}}
    try:
        for name, args, rep in services:
            reply, start_ms = launch(bin_dir, name, args, env, ctx, rep, procs)
            result["services"][name] = {"start_ms": start_ms if reply else None,
                                        "healthy": bool(reply and "result" in reply)}
        time.sleep(3)
        for name, proc in procs:
            result["services"][name]["rss_mb"] = rss_mb(proc.pid) if proc.poll() is None else None
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.RCVHWM, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"price.")
        sub.setsockopt(zmq.SUBSCRIBE, b"quote.")
        sub.connect(env["TICKWIRE_CONVERTER_PUB"])
        sub.connect(env["TICKWIRE_RATES_FETCHER_PUB"])
        counts, lat = {"price": 0, "quote": 0}, {"price": [], "quote": []}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not sub.poll(100):
                continue
            topic, body = sub.recv_multipart()[:2]
            kind = topic.split(b".")[0].decode()
            if kind in counts:
                counts[kind] += 1
                sent = datetime.fromisoformat(orjson.loads(body)["time"])
                lat[kind].append((datetime.now(timezone.utc) - sent).total_seconds() * 1000)
        sub.close(linger=0)
        for kind in counts:
            s = sorted(lat[kind])
            result[kind] = {"per_second": counts[kind] / seconds,
                            "latency_ms_p50": s[len(s) // 2] if s else None,
                            "latency_ms_p99": s[min(len(s) - 1, int(len(s) * 0.99))] if s else None}
        for name, proc in procs:
            result["services"][name]["rss_mb_after"] = rss_mb(proc.pid) if proc.poll() is None else None
    finally:
        stop(procs)
        ctx.term()
    result["pipeline"] = pipeline(bin_dir, seconds)
    result["presenter_intake"] = presenter_intake(bin_dir, seconds, 100_000)
    result["presenter_intake_flat_out"] = presenter_intake(bin_dir, seconds, 0)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    emit(run(args.bin_dir, args.seconds))
