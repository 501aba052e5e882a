"""A JSON-RPC proxy in front of anvil that counts calls by method (each call of a batch counts: providers meter
calls, not HTTP requests)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

import requests

from tests.support.servers import http_server


class CallCount:
    def __init__(self) -> None:
        self.methods: Counter[str] = Counter()
        self.lock = threading.Lock()

    def add(self, body: object) -> None:
        calls = body if isinstance(body, list) else [body]
        with self.lock:
            self.methods.update(str(c.get("method")) for c in calls if isinstance(c, dict))

    def take(self) -> Counter[str]:
        """The calls counted since the last take."""
        with self.lock:
            taken, self.methods = self.methods, Counter()
        return taken


@contextmanager
def counting_proxy(upstream: str) -> Iterator[tuple[str, CallCount]]:
    count = CallCount()
    session = requests.Session()

    class Proxy(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802  (stdlib name)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            count.add(json.loads(body))
            answer = session.post(upstream, data=body, headers={"Content-Type": "application/json"}, timeout=30)
            self.send_response(answer.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    with http_server(Proxy) as url:
        yield url, count
