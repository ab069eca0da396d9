"""`make soak DURATION=1h`: the whole stack under steady load for DURATION, one row a minute.

Starts the five services (scripts/stack.py; rates-fetcher with mock feeds at their demo periods), then
runs, each in its own thread:

- a Python subscriber of the converter's `price.` (the tickwire package of clients/python, the Clone pattern): the
  quote -> price latency of each applied price, its arrival minus its `quoteTime` (the quote's creation in
  the fetcher, wall clock to the millisecond, the same clock for every process of the machine);
- RPC clients: `convert` every 100 ms, `holdings` every 500 ms, the presenter's `portfolio` view every
  second, and `trades.add` with a fresh `requestId` every 2 s (retried with the same id), the oldest trade
  removed beyond --keep-trades so that the data stays the same size: the round trip of each, and its errors;
- an SSE client of the presenter's `/events`: events received, reconnections.

The depth signals, per service and minute: `lag_ms_p99_<service>` (its subscribers' delivery lag, the p99
bucket of `tickwire_bus_delivery_lag_seconds`: how long a message waited before its reader took it),
`superseded_`, `dropped_` and `gaps_` (its subscribers' conflated, lost and re-synchronised messages) and
`publisher_dropped_` (messages its publisher could not give a subscriber a high-water mark behind).

Every `--interval` seconds it writes a CSV row (bench/soak/soak.csv by default) with each service's RSS
(VmRSS), the p50/p99 of quote -> price and of the requests over the minute, errors, and per service the
depth signals its `metrics` gives: the subscribers' delivery lag (p99 bucket, the time a message waited
before its reader took it), and the messages superseded, dropped and gap re-synchronisations in the
minute; at the end an SVG plot (soak.svg) of RSS and latencies against time, and a summary JSON whose
`flat` says whether each series' last quarter stays within the bounds stated in `flatness`.
"""
import argparse
import csv
import http.client
import json
import os
import re
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stack import SERVICES, Stack, metric_lines, metric_sum, percentile  # noqa: E402
from tickwire import Client, RPCError, Subscriber, TickwireError  # noqa: E402
import svgplot  # noqa: E402


def parse_duration(text):
    """`90s`, `10m`, `1h`, or seconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smh]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad duration {text!r}: use e.g. 90s, 10m, 1h")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Window:
    """Samples and counts gathered by the load threads, handed over and reset once a minute."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.price_ms, self.request_ms, self.errors, self.counts = [], {}, {}, {}

    def add_price(self, ms):
        with self.lock:
            self.price_ms.append(ms)

    def add_request(self, method, ms):
        with self.lock:
            self.request_ms.setdefault(method, []).append(ms)

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n

    def error(self, key):
        with self.lock:
            self.errors[key] = self.errors.get(key, 0) + 1

    def take(self):
        with self.lock:
            taken = (self.price_ms, self.request_ms, self.errors, self.counts)
            self.reset()
            return taken


def subscriber_loop(stack, window, stop):
    snapshot = set()  # the envelopes a snapshot handed over: old by design, no latency sample
    sub = Subscriber(stack.pub("converter"), stack.rep("converter"), ["price."], heartbeat_timeout=3.0,
                     on_snapshot=lambda state: snapshot.__init__(id(e) for e in state.values()))
    resyncs, last_quote = 0, {}
    try:
        while not stop.is_set():
            for topic, envelope in sub.poll(0.5):
                if sub.resyncs != resyncs:
                    resyncs = sub.resyncs
                    window.count("sub_resyncs")
                quote_time = envelope.get("data", {}).get("quoteTime")
                # A price re-derived for a new rate keeps its asset's older quote: only a new quote times.
                fresh, last_quote[topic] = quote_time != last_quote.get(topic), quote_time
                if quote_time and fresh and id(envelope) not in snapshot:
                    window.add_price((datetime.now(timezone.utc) - parse_time(quote_time)).total_seconds() * 1000)
    finally:
        sub.close()


def timed(window, client, method, params=None, label=None):
    start = time.perf_counter()
    try:
        result = client.call(method, params)
        window.add_request(label or method, (time.perf_counter() - start) * 1000)
        return result
    except RPCError as error:
        window.error(f"{label or method}:{error.code}")
    except TickwireError:
        window.error(f"{label or method}:unreachable")
    return None


def rpc_loop(stack, window, stop, trades, keep_trades):
    converter = Client(stack.rep("converter"), timeout=2.0, retries=2)
    portfolio = Client(stack.rep("portfolio"), timeout=2.0, retries=2)
    presenter = Client(stack.rep("presenter"), timeout=3.0, retries=1)
    tick, held = 0, []
    next_at = time.monotonic()
    try:
        while not stop.is_set():
            timed(window, converter, "convert", {"amount": "10", "from": "USD", "to": "EUR"})
            if tick % 5 == 0:
                timed(window, portfolio, "holdings", {"currency": "USD"})
            if tick % 10 == 0:
                timed(window, presenter, "view", {"screen": "portfolio"}, label="view")
            if tick % 20 == 0:
                request_id = str(uuid.uuid4())
                params = {"asset": "BTC", "amount": "0.001", "price": "65000", "currency": "USD",
                          "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"), "requestId": request_id}
                for _ in range(5):
                    trade = timed(window, portfolio, "trades.add", params)
                    if trade is not None:
                        trades.append(request_id)
                        held.append(trade["id"])
                        break
                # A steady state holds steady data: beyond --keep-trades, the oldest trade goes.
                while len(held) > keep_trades:
                    if timed(window, portfolio, "trades.remove", {"id": held[0]}) is None:
                        break
                    held.pop(0)
            tick += 1
            next_at += 0.1
            stop.wait(max(0.0, next_at - time.monotonic()))
    finally:
        for client in (converter, portfolio, presenter):
            client.close()


def sse_loop(stack, window, stop):
    url = urlparse(stack.http)
    while not stop.is_set():
        try:
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
            connection.request("GET", "/events?currency=USD")
            response = connection.getresponse()
            window.count("sse_connects")
            while not stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"data:"):
                    window.count("sse_events")
            connection.close()
        except (OSError, http.client.HTTPException):
            window.error("sse:disconnected")
            stop.wait(1.0)


def warm_up(stack, seconds=60.0):
    """Waits until the stack serves what the load asks: a USD -> EUR rate, and BTC known to the portfolio."""
    deadline = time.monotonic() + seconds
    with Client(stack.rep("converter"), timeout=1.0, retries=0) as converter, \
            Client(stack.rep("portfolio"), timeout=1.0, retries=0) as portfolio:
        while time.monotonic() < deadline:
            try:
                converter.call("convert", {"amount": "1", "from": "BTC", "to": "EUR"})
                holdings = portfolio.call("holdings", {"currency": "USD"})
                if holdings and not holdings.get("offline"):
                    return
            except TickwireError:
                pass
            time.sleep(0.5)
    raise RuntimeError("the stack did not get its first prices within a minute")


def histogram_quantile(text, name, q):
    """The upper bound of the bucket holding quantile `q` of histogram `name` (every series summed)."""
    buckets = {}
    for line in metric_lines(text, name + "_bucket"):
        bound = line.split('le="', 1)[1].split('"', 1)[0]
        buckets[float(bound)] = buckets.get(float(bound), 0) + float(line.rsplit(" ", 1)[1])
    return buckets


def quantile_of_delta(now, before, q):
    """The bucket bound of quantile `q` over the observations between two bucket snapshots."""
    delta = {bound: count - before.get(bound, 0) for bound, count in now.items()}
    total = delta.get(float("inf"), 0)
    if total <= 0:
        return None
    return next((bound for bound, count in sorted(delta.items()) if count >= q * total), None)


COUNTERS = ["tickwire_bus_superseded_total", "tickwire_bus_dropped_total", "tickwire_bus_gaps_total",
            "tickwire_bus_published_total", "tickwire_rpc_errors_total"]


def scrape(stack, clients, name):
    try:
        return clients[name].call("metrics") or ""
    except TickwireError:
        return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--plugin-bin-dir", required=True)
    parser.add_argument("--duration", type=parse_duration, default=parse_duration("1h"))
    parser.add_argument("--interval", type=float, default=60.0)
    parser.add_argument("--keep-trades", type=int, default=100,
                        help="trades the portfolio holds at most: the oldest is removed beyond (steady data)")
    parser.add_argument("--out-dir", default="bench/soak")
    parser.add_argument("--report", default="", help="Markdown file to write the figures into (e.g. bench/CHAOS.md)")
    parser.add_argument("--command", default="make soak", help="the command named in the report")
    args = parser.parse_args()

    out = args.out_dir
    os.makedirs(out, exist_ok=True)
    data_dir = os.path.join(out, "data")
    for leftover in ("portfolio.sqlite", "price-alerts.sqlite"):
        for suffix in ("", "-wal", "-shm"):
            path = os.path.join(data_dir, leftover + suffix)
            if os.path.exists(path):
                os.remove(path)
    stack = Stack(args.bin_dir, args.plugin_bin_dir, data_dir, os.path.join(out, "logs"))
    window, stop, trades = Window(), threading.Event(), []
    rows, columns = [], None
    began = time.monotonic()
    try:
        stack.start_all()
        print(f"stack up: {json.dumps(stack.endpoints)}", flush=True)
        clients = {name: Client(stack.rep(name), timeout=2.0, retries=1) for name in SERVICES}
        warm_up(stack)
        threads = [threading.Thread(target=target, args=arguments, daemon=True) for target, arguments in [
            (subscriber_loop, (stack, window, stop)), (rpc_loop, (stack, window, stop, trades, args.keep_trades)),
            (sse_loop, (stack, window, stop))]]
        for thread in threads:
            thread.start()
        previous = {name: scrape(stack, clients, name) for name in SERVICES}
        window.take()
        began = time.monotonic()
        minute = 0
        csv_path = os.path.join(out, "soak.csv")
        with open(csv_path, "w", newline="") as handle:
            writer = None
            while time.monotonic() - began < args.duration:
                minute += 1
                stop.wait(max(0.0, began + minute * args.interval - time.monotonic()))
                price_ms, request_ms, errors, counts = window.take()
                all_requests = [ms for samples in request_ms.values() for ms in samples]
                row = {"minute": minute, "elapsed_s": round(time.monotonic() - began, 1),
                       "time": datetime.now(timezone.utc).strftime("%H:%M:%S")}
                for name in SERVICES:
                    rss = stack.rss_kb(name)
                    row[f"rss_mb_{name}"] = round(rss / 1024, 2) if rss else None
                row["quote_price_ms_p50"] = percentile(price_ms, 0.5)
                row["quote_price_ms_p99"] = percentile(price_ms, 0.99)
                row["prices"] = len(price_ms)
                row["request_ms_p50"] = round(percentile(all_requests, 0.5) or 0, 3)
                row["request_ms_p99"] = round(percentile(all_requests, 0.99) or 0, 3)
                for method in ("convert", "holdings", "view", "trades.add"):
                    p99 = percentile(request_ms.get(method, []), 0.99)
                    row[f"{method}_ms_p99"] = round(p99, 3) if p99 is not None else None
                row["requests"] = len(all_requests)
                row["client_errors"] = sum(errors.values())
                row["client_error_kinds"] = ";".join(f"{k}={v}" for k, v in sorted(errors.items()))
                row["sse_events"] = counts.get("sse_events", 0)
                row["sub_resyncs"] = counts.get("sub_resyncs", 0)
                for name in SERVICES:
                    text = scrape(stack, clients, name)
                    lag_now = histogram_quantile(text, "tickwire_bus_delivery_lag_seconds", 0.99)
                    lag_before = histogram_quantile(previous[name], "tickwire_bus_delivery_lag_seconds", 0.99)
                    lag = quantile_of_delta(lag_now, lag_before, 0.99)
                    row[f"lag_ms_p99_{name}"] = round(lag * 1000, 3) if lag not in (None, float("inf")) else lag
                    for counter in ("superseded", "dropped", "gaps", "publisher_dropped"):
                        metric = f"tickwire_bus_{counter}_total"
                        row[f"{counter}_{name}"] = int(metric_sum(text, metric) - metric_sum(previous[name], metric))
                    previous[name] = text or previous[name]
                row["exited"] = ";".join(f"{n}={c}" for n, c in stack.exited().items())
                if writer is None:
                    columns = list(row)
                    writer = csv.DictWriter(handle, fieldnames=columns)
                    writer.writeheader()
                writer.writerow(row)
                handle.flush()
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        stop.set()
        stack.stop()
    summary = summarize(rows, len(trades), args)
    with open(os.path.join(out, "summary.json"), "w") as handle:
        json.dump(summary, handle, indent=2)
    svgplot.write(os.path.join(out, "soak.svg"), rows, SERVICES,
                  title=f"Tickwire soak, {args.duration / 60:.0f} min, one point a minute")
    print(json.dumps(summary, indent=2))
    if args.report:
        write_report(args, rows, summary)
    return 0 if summary["flat"]["all"] and not summary["exited"] else 1


def write_report(args, rows, summary):
    """The soak's section of the report: the summary, a few rows of the CSV, the plot."""
    from chaos import replace_section
    keys = ["minute", "time"] + [f"rss_mb_{name}" for name in SERVICES] + [
        "quote_price_ms_p50", "quote_price_ms_p99", "request_ms_p50", "request_ms_p99", "prices", "requests",
        "client_errors", "sse_events"] + [f"{kind}_{name}" for name in ("converter", "presenter") for kind in ("superseded", "gaps")]
    picks = sorted({0, len(rows) // 4, len(rows) // 2, 3 * len(rows) // 4, len(rows) - 1}) if rows else []

    def cell(value, digits=1):
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    table = "| " + " | ".join(keys) + " |\n|" + "---|" * len(keys) + "\n" + "\n".join(
        "| " + " | ".join(cell(rows[i].get(k)) for k in keys) + " |" for i in picks)
    series = "\n".join(f"| {key} | {cell(v.get('first', '-'), 2)} | {cell(v['second_quarter_max'], 2)} | {cell(v['last_quarter_max'], 2)} | {cell(v['max'], 2)} | "
                       f"{v.get('slope_mb_per_hour', '-')} | {'flat' if summary['flat'][key] else 'NOT flat'} |"
                       for key, v in summary["series"].items())
    plot = os.path.relpath(os.path.join(args.out_dir, "soak.svg"), os.path.dirname(os.path.abspath(args.report)))
    csv_path = os.path.relpath(os.path.join(args.out_dir, "soak.csv"), os.path.dirname(os.path.abspath(args.report)))
    section = f"""<!-- soak:begin -->
## Soak

`{args.command}`: {summary['minutes']} minutes, ended {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}
(load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores).
{summary['trades_acknowledged']} trades added (at most {args.keep_trades} held: the oldest removed), {summary['client_errors']} client errors; services that exited: {summary['exited'] or 'none'}.

![soak plot]({plot})

| series | first minute | max of the 2nd quarter | max of the last quarter | max | MB/h after the 1st quarter | verdict |
|---|---|---|---|---|---|---|
{series}

Flat means: {summary['flatness']}. Every minute's row is in [{os.path.basename(csv_path)}]({csv_path}); some of them:

{table}
<!-- soak:end -->"""
    replace_section(args.report, "soak", section)


def slope(rows, key):
    """The least-squares slope of `key` against elapsed time, per hour (None with fewer than 3 points)."""
    points = [(r["elapsed_s"] / 3600, r[key]) for r in rows if isinstance(r.get(key), (int, float))]
    if len(points) < 3:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return round(sum((x - mean_x) * (y - mean_y) for x, y in points) / spread, 3) if spread else None


def summarize(rows, trades, args):
    """First and last quarter of each series, and whether it stayed flat: RSS growth of the last quarter
    over the second under 10 % (plus 2 MB of slack) and a trend after the first quarter under 2 MB an hour, latency p99 of the last quarter under twice the second's
    (plus 5 ms)."""
    quarter = max(1, len(rows) // 4)
    second, last = rows[quarter: 2 * quarter] or rows[:1], rows[-quarter:]

    def peak(part, key):
        values = [r[key] for r in part if isinstance(r.get(key), (int, float))]
        return max(values) if values else None

    flat, series = {}, {}
    for name in SERVICES:
        key = f"rss_mb_{name}"
        early, late = peak(second, key), peak(last, key)
        series[key] = {"first": rows[0].get(key) if rows else None, "second_quarter_max": early, "last_quarter_max": late,
                       "max": peak(rows, key), "slope_mb_per_hour": slope(rows[quarter:], key)}
        grows = series[key]["slope_mb_per_hour"]
        flat[key] = (early is not None and late is not None and late <= early * 1.10 + 2
                     and (grows is None or grows < 2))
    for key in ("quote_price_ms_p99", "request_ms_p99"):
        early, late = peak(second, key), peak(last, key)
        series[key] = {"second_quarter_max": early, "last_quarter_max": late, "max": peak(rows, key)}
        flat[key] = early is not None and late is not None and late <= early * 2 + 5
    flat["all"] = all(flat.values())
    return {"minutes": len(rows), "duration_s": args.duration, "trades_acknowledged": trades,
            "client_errors": sum(r["client_errors"] for r in rows), "series": series, "flat": flat,
            "exited": sorted({r["exited"] for r in rows if r["exited"]}),
            "flatness": "RSS: last quarter's max <= 1.1 x second quarter's max + 2 MB, and its least-squares trend after the first quarter under 2 MB/h; p99: last quarter's max <= "
                        "2 x second quarter's max + 5 ms"}


if __name__ == "__main__":
    sys.exit(main())
