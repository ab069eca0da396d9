#!/usr/bin/env python3
"""`make test-otlp`: spans leave a service over OTLP/HTTP when it is built with the OTLP trait.

Starts a local OTLP/HTTP receiver (scripts/otlp_receiver.py) and the converter built with `--traits OTLP`, given
`--otlp-endpoint`; calls its `health` method with a `traceparent` of a fresh trace id; then checks that a POST to
/v1/traces carries that trace id (its 16 bytes in the protobuf body: the converter's server span for `health`,
a child of the caller's span), and that its `--log-format json` lines are JSON. Also checks that the same build
without `--otlp-endpoint` logs its spans on `tickwire.converter.spans` instead, and that a bad `--otlp-endpoint`
stops the service at start with a message naming the flag.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable

import zmq

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("otlp_receiver", HERE / "otlp_receiver.py")
assert spec is not None and spec.loader is not None
otlp_receiver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(otlp_receiver)


def call(endpoint: str, request: dict[str, object], deadline: float) -> dict[str, object]:
    """One JSON-RPC request over REQ, resent each second until `deadline` (the service may still be starting)."""
    context = zmq.Context.instance()
    while time.monotonic() < deadline:
        socket = context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(endpoint)
        socket.send(json.dumps(request).encode())
        if socket.poll(1000, zmq.POLLIN):
            reply = json.loads(socket.recv())
            socket.close()
            return reply
        socket.close()
    raise AssertionError(f"no answer from {endpoint}")


def run_converter(converter: pathlib.Path, folder: str, extra: list[str],
                  done: Callable[[str], bool] = lambda trace_id: True) -> tuple[str, list[str]]:
    """Starts the converter with `extra` flags, calls `health` with a traceparent of a fresh trace, stops it with
    SIGTERM once `done` says so (or after 15 s), and gives the trace id and its log lines."""
    rep = f"ipc://{folder}/converter-rep"
    log_path = pathlib.Path(folder) / "converter.log"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TICKWIRE_")}
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(converter), "--rep", rep, "--pub", f"ipc://{folder}/converter-pub",
             "--fetcher-pub", f"ipc://{folder}/fetcher-pub", "--fetcher-rep", f"ipc://{folder}/fetcher-rep",
             "--log-format", "json", "--log-level", "debug", *extra],
            stdout=log, stderr=log, env=environment)
        try:
            reply = call(rep, {"jsonrpc": "2.0", "id": 1, "method": "health", "params": None,
                               "traceparent": f"00-{trace_id}-{parent_id}-01"}, time.monotonic() + 30)
            assert "result" in reply, f"health answered {json.dumps(reply)[:200]}"
            deadline = time.monotonic() + 15  # the batch processor sends every second
            while not done(trace_id) and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return trace_id, log_path.read_text(errors="replace").splitlines()


def json_lines(lines: list[str]) -> list[dict[str, object]]:
    """The lines that parse as JSON."""
    objects = []
    for line in lines:
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return objects


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin-dir", required=True, type=pathlib.Path, help="where the OTLP build's converter is")
    args = parser.parse_args()
    converter = args.bin_dir / "converter"
    passed, failed = 0, 0

    def check(condition: bool, what: str) -> None:
        nonlocal passed, failed
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if condition:
            passed += 1
        else:
            failed += 1

    bad = subprocess.run([str(converter), "--otlp-endpoint", "collector:4318"], capture_output=True, text=True, timeout=60)
    check(bad.returncode != 0 and "--otlp-endpoint (env TICKWIRE_OTLP_ENDPOINT) must be an http or https URL" in bad.stderr,
          "a bad --otlp-endpoint stops the converter at start, naming the flag and its variable")

    with tempfile.TemporaryDirectory(prefix="tickwire-otlp-") as folder, otlp_receiver.Receiver() as receiver:
        trace_id, lines = run_converter(converter, folder, ["--otlp-endpoint", f"http://127.0.0.1:{receiver.port}"],
                                        done=lambda trace_id: bool(receiver.traces_with(trace_id)))
        check(any(path == "/v1/traces" and "protobuf" in kind for path, kind, _ in receiver.posts),
              f"the converter posted OTLP/HTTP protobuf to /v1/traces ({len(receiver.posts)} posts)")
        carrying = receiver.traces_with(trace_id)
        check(bool(carrying), f"a posted span carries the caller's trace id {trace_id}")
        check(any(b"service.name" in body and b"converter" in body for body in carrying),
              "its resource names the service (service.name converter)")
        objects = json_lines(lines)
        check(len(objects) == len(lines) and len(lines) > 0, f"every log line is one JSON object ({len(lines)} lines)")
        check(any(o.get("message") == "exporting spans over OTLP/HTTP" for o in objects), "the converter says where its spans go")
        if failed:
            sys.stdout.write("converter's log:\n" + "\n".join(lines[-40:]) + "\n")

    with tempfile.TemporaryDirectory(prefix="tickwire-otlp-") as folder:
        trace_id, lines = run_converter(converter, folder, [])
        spans = [o for o in json_lines(lines) if o.get("logger") == "tickwire.converter.spans"]
        health = [o for o in spans if (o.get("metadata") or {}).get("name") == "health"]
        check(any((o.get("metadata") or {}).get("trace_id") == trace_id for o in health),
              f"without --otlp-endpoint, the same build logs the health span with the caller's trace id ({len(spans)} span lines)")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
