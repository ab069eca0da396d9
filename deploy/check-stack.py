#!/usr/bin/env python3
"""Checks a running stack as a person would: prices flow on the converter's stream, the dashboard
answers, and it links the page of each plugin named with --plugin (which answers too). Waits up to --timeout
seconds for each; exits 0 when all hold, else 1 saying what is missing.

Usage: check-stack.py [--prices tcp://127.0.0.1:7202] [--dashboard http://127.0.0.1:8080] [--plugin NAME]... [--timeout 120]
"""
import argparse
import json
import sys
import time
import urllib.error
import urllib.request

import zmq


def prices(endpoint, deadline):
    """The first few `price.` messages on the converter's PUB, or None by the deadline."""
    context = zmq.Context.instance()
    socket = context.socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SUBSCRIBE, b"price.")
    socket.connect(endpoint)
    seen = []
    try:
        while len(seen) < 3:
            left = deadline - time.monotonic()
            if left <= 0 or not socket.poll(int(left * 1000)):
                return None
            frames = socket.recv_multipart()
            seen.append(frames[0].decode())
        return seen
    finally:
        socket.close()


def dashboard(url, deadline):
    """/health's report once it says ok, and the status of /coins; None by the deadline."""
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                health = json.load(response)
            with urllib.request.urlopen(f"{url}/coins", timeout=5) as response:
                page = response.read().decode()
            if "<html" in page.lower():
                return health, response.status
            last = "/coins is not a page"
        except urllib.error.HTTPError as error:
            last = f"HTTP {error.code} ({error.read().decode()[:200]})"
        except (OSError, ValueError) as error:
            last = str(error)
        time.sleep(1)
    print(f"dashboard at {url}: {last}", file=sys.stderr)
    return None


def plugin_page(url, name, deadline):
    """The title of plugin `name`'s page once the dashboard links it and the page answers; None by the deadline."""
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/coins", timeout=5) as response:
                linked = f'href="/plugins/{name}"' in response.read().decode()
            if linked:
                with urllib.request.urlopen(f"{url}/plugins/{name}", timeout=5) as response:
                    page = response.read().decode()
                start = page.find("<h1>")
                return page[start + 4:page.find("</h1>", start)] if start >= 0 else "(untitled)"
            last = "no link in the navigation"
        except urllib.error.HTTPError as error:
            last = f"HTTP {error.code}"
        except (OSError, ValueError) as error:
            last = str(error)
        time.sleep(1)
    print(f"plugin {name} on {url}: {last}", file=sys.stderr)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prices", default="tcp://127.0.0.1:7202")
    parser.add_argument("--dashboard", default="http://127.0.0.1:8080")
    parser.add_argument("--plugin", action="append", default=[], metavar="NAME",
                        help="a plugin whose page the dashboard must link (repeatable)")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    ok = True
    topics = prices(args.prices, time.monotonic() + args.timeout)
    if topics:
        print(f"prices flow on {args.prices}: {', '.join(topics)}")
    else:
        print(f"no prices on {args.prices} within {args.timeout:.0f} s", file=sys.stderr)
        ok = False
    answer = dashboard(args.dashboard, time.monotonic() + args.timeout)
    if answer:
        health, status = answer
        print(f"the dashboard answers on {args.dashboard}: /health {health['status']}, /coins {status}")
    else:
        ok = False
    for name in args.plugin:
        title = plugin_page(args.dashboard, name, time.monotonic() + args.timeout)
        if title is None:
            ok = False
        else:
            print(f"the dashboard links /plugins/{name}: {title}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
