"""Local HTTP servers for tests of remote services that cannot run here."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def http_server(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on a free loopback port in a thread; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def reply_json(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    """Answer `body` as JSON with its length, as the documented APIs the stand-ins follow do."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class JsonHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers JSON (for servers following a JSON API)."""

    def reply_json(self, status: int, body: object) -> None:
        reply_json(self, status, body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002  (stdlib signature)
        pass
