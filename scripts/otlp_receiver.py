#!/usr/bin/env python3
"""A tiny OTLP/HTTP receiver for tests and a quick look: records every POST to /v1/traces and answers it as a
collector would (200, an empty ExportTraceServiceResponse). It decodes nothing: a test looks for a trace id's 16 bytes
in the protobuf bodies.

    python3 scripts/otlp_receiver.py --port 4318 --out /tmp/spans   # one file per POST
    make run OTLP=1                                                  # the stack sends its spans there

`make test-otlp` (scripts/test-otlp.py) uses it in process through `Receiver`.
"""

from __future__ import annotations

import argparse
import http.server
import pathlib
import threading


class Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1:`port` (0: any free port) in a background thread."""

    def __init__(self, port: int = 0, out: pathlib.Path | None = None) -> None:
        self.posts: list[tuple[str, str, bytes]] = []  # (path, content type, body)
        self._lock = threading.Lock()
        self._out = out
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                receiver._record(self.path, self.headers.get("Content-Type", ""), body)
                status = 200 if self.path == "/v1/traces" else 404
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _record(self, path: str, content_type: str, body: bytes) -> None:
        with self._lock:
            self.posts.append((path, content_type, body))
            count = len(self.posts)
        if self._out is not None:
            (self._out / f"{count:05d}.pb").write_bytes(body)
        print(f"POST {path} {content_type} {len(body)} bytes", flush=True)

    def traces_with(self, trace_id_hex: str) -> list[bytes]:
        """The bodies posted to /v1/traces that hold the trace id (its 16 bytes, as OTLP's protobuf carries it)."""
        trace_id = bytes.fromhex(trace_id_hex)
        with self._lock:
            return [body for path, _, body in self.posts if path == "/v1/traces" and trace_id in body]

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=4318, help="port on 127.0.0.1 (default 4318, OTLP/HTTP's)")
    parser.add_argument("--out", type=pathlib.Path, help="folder to write each POST's body to")
    args = parser.parse_args()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    with Receiver(args.port, args.out) as receiver:
        print(f"OTLP/HTTP receiver on http://127.0.0.1:{receiver.port} (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
