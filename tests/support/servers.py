"""Local HTTP servers for tests of remote services that cannot run here."""

from __future__ import annotations

import json
import select
import socket
import socketserver
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


@contextmanager
def socks5_proxy(connects: list[tuple[str, int]]) -> Iterator[str]:
    """A SOCKS5 proxy (RFC 1928: no authentication, CONNECT only) on a free loopback port, in threads; yields its
    `socks5h://` URL. Every CONNECT is recorded in `connects` as (host, port) and relayed to 127.0.0.1:port,
    whatever the host names, so a test's made-up host names reach its local servers. Stops with the block."""
    stop = threading.Event()

    class Relay(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            client = self.request
            _version, methods = _exactly(client, 2)
            _exactly(client, methods)
            client.sendall(b"\x05\x00")  # no authentication
            _version, command, _reserved, kind = _exactly(client, 4)
            if kind == 3:
                host = _exactly(client, _exactly(client, 1)[0]).decode()
            else:
                host = socket.inet_ntop(socket.AF_INET if kind == 1 else socket.AF_INET6,
                                        _exactly(client, 4 if kind == 1 else 16))
            port = int.from_bytes(_exactly(client, 2), "big")
            if command != 1:
                client.sendall(b"\x05\x07\x00\x01" + bytes(6))  # command not supported
                return
            connects.append((host, port))
            with socket.create_connection(("127.0.0.1", port), timeout=5) as upstream:
                client.sendall(b"\x05\x00\x00\x01" + bytes(6))
                _relay(client, upstream, stop)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Relay)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"socks5h://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()  # relays still open end now
        server.shutdown()
        server.server_close()
        thread.join()


def _exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the SOCKS client hung up")
        data += chunk
    return data


def _relay(client: socket.socket, upstream: socket.socket, stop: threading.Event) -> None:
    ends = {client: upstream, upstream: client}
    while not stop.is_set():
        readable, _, _ = select.select(list(ends), [], [], 0.1)
        for sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            ends[sock].sendall(data)
