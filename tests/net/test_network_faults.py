"""Network faults: every client ends within its deadline, fails loudly, records nothing, leaks no token.

The services (kubo RPC, a Pinning Service API, Pinata, Netlify, a trustless gateway, an Ethereum JSON-RPC
node behind credentials) cannot run here;
each fault is a local HTTP server on 127.0.0.1 misbehaving the way real ones do: trickling a byte at a
time (no per-read timeout ever trips), hanging, answering a plain-text 500 from a proxy, streaming an
endless body, and echoing the request's Authorization header in a 401 body. Servers stop by themselves.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.base.errors import MintprepError
from mintprep.net.http import RetryPolicy
from mintprep.ipfs.backends import KuboBackend, PinataBackend, PsaBackend
from mintprep.ipfs.gateway import TrustlessGateway
from mintprep.ipfs.verify import VerificationFailed
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.page.publish import deploy_to_netlify
from mintprep.collection.page_settings import PublishSettings
from tests.support.servers import http_server

TOKENS = {"kubo": "kubo-token-7f3a9c2e", "psa": "psa-token-55b1d0aa", "pinata": "pinata-jwt-e81c44f0",
          "netlify": "netlify-pat-09c3bb71", "gateway": "gateway-token-3d2f", "rpc": "rpc-key-a1b2c3d4e5"}
POLICY = RetryPolicy(attempts=3, base_delay=0.05, max_delay=0.2, timeout=0.4, give_up_after=1.0,
                     max_body_bytes=256 * 1024)
SLACK = 1.5  # thread start, backoff rounding, a loaded CI machine
SERVER_LIFETIME = 15.0  # a fault server's handlers give up by themselves after this long
PROFILE = get_profile("kubo-cidv1")


def _piece():
    return import_directory({"1.png": import_bytes(b"\x89PNG fake image" * 50, PROFILE),
                             "1.json": import_bytes(b"{}", PROFILE)}, PROFILE)


class _Fault(BaseHTTPRequestHandler):
    mode: str
    stop: threading.Event
    protocol_version = "HTTP/1.0"

    def log_message(self, format, *args):  # noqa: A002
        pass

    def _drain(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    def _slowly(self, data: bytes, every: float) -> None:
        for byte in data:
            if self.stop.wait(every):
                return
            self.wfile.write(bytes([byte]))
            self.wfile.flush()

    def _handle(self) -> None:
        self._drain()
        started = time.monotonic()
        try:
            if self.mode == "trickle-body":
                self.send_response(200)
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self._slowly(b"x" * 1000, 0.1)
            elif self.mode == "trickle-headers":
                self._slowly(b"HTTP/1.0 200 OK\r\nX-Slow: " + b"y" * 1000, 0.1)
            elif self.mode == "hang":
                self.stop.wait(SERVER_LIFETIME)
            elif self.mode == "plain-500":
                body = b"500 Internal Server Error (nginx)"
                self.send_response(500)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.mode == "endless":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                while not self.stop.is_set() and time.monotonic() - started < SERVER_LIFETIME:
                    self.wfile.write(b"[" * 65536)
            elif self.mode == "echo-credentials":
                body = json.dumps({"error": "unauthorized", "you sent": dict(self.headers)}).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    do_GET = do_POST = do_PUT = do_DELETE = _handle


@contextmanager
def fault_server(mode: str) -> Iterator[str]:
    stop = threading.Event()
    with http_server(type("Fault", (_Fault,), {"mode": mode, "stop": stop})) as url:
        try:
            yield url
        finally:
            stop.set()  # handlers still trickling or hanging end now


def _kubo(url: str) -> None:
    KuboBackend(url, token=TOKENS["kubo"], policy=POLICY).pin_dag(_piece(), name="token-1")


def _kubo_block(url: str) -> None:
    if KuboBackend(url, token=TOKENS["kubo"], policy=POLICY).fetch_block(_piece().root) is not None:
        raise AssertionError("a faulty node cannot have served the block")


def _psa(url: str) -> None:
    PsaBackend(url, token=TOKENS["psa"], gateway=url, policy=POLICY, pin_timeout=1.0).pin_dag(_piece(), name="t-1")


def _pinata(url: str) -> None:
    PinataBackend(token=TOKENS["pinata"], gateway=url, api_url=url, upload_url=url, policy=POLICY) \
        .pin_dag(_piece(), name="t-1")


def _netlify(url: str) -> None:
    settings = PublishSettings(target="netlify", netlify_site_id="site-1", netlify_api_url=url)
    deploy_to_netlify({"index.html": b"<html></html>"}, settings, token=TOKENS["netlify"], policy=POLICY)


def _gateway(url: str) -> None:
    import requests

    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {TOKENS['gateway']}"
    report = TrustlessGateway(url, session=session, policy=POLICY).verify(_piece().root)
    if report.ok:
        raise AssertionError("a faulty gateway cannot have served the DAG intact")
    # an endless block answer is cut off at the block limit and reported as such, as a pin's verification reports it
    raise VerificationFailed("t-1", "the gateway", report)


def _rpc(url: str) -> None:
    from mintprep.chain.rpc import connect

    connect(url.replace("http://", f"http://user:{TOKENS['rpc']}@"), timeout=POLICY.timeout, retries=1)


CLIENTS: dict[str, Callable[[str], None]] = {"kubo": _kubo, "kubo-block": _kubo_block, "psa": _psa,
                                             "pinata": _pinata, "netlify": _netlify, "gateway": _gateway,
                                             "chain-rpc": _rpc}
MODES = ["trickle-body", "trickle-headers", "hang", "plain-500", "endless", "echo-credentials"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_each_client_ends_within_its_deadline_without_leaking_a_token(client: str, mode: str):
    with fault_server(mode) as url:
        started = time.monotonic()
        with pytest.raises(MintprepError) as failure:
            CLIENTS[client](url)
        took = time.monotonic() - started
    assert took < POLICY.give_up_after + SLACK, f"{client} on a {mode} server took {took:.1f}s"
    message = str(failure.value)
    assert not any(token in message for token in TOKENS.values()), message
    assert "127.0.0.1" in message or client in ("kubo-block", "gateway"), message


def test_kubo_block_reads_ask_for_offline():
    """A block the node lacks must be an answer at once, not a 60-second DHT search."""
    seen: list[str] = []

    class Recording(_Fault):
        def _handle(self) -> None:
            seen.append(self.path)
            body = json.dumps({"Message": "block was not found locally (offline)", "Type": "error"}).encode()
            self.send_response(500)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = _handle

    with http_server(Recording) as url:
        assert KuboBackend(url, policy=POLICY).fetch_block(_piece().root) is None
    assert len(seen) == 1 and "offline=true" in seen[0]


def test_run_against_a_hanging_kubo_gives_up_in_time_and_records_no_pin(tmp_path: Path, monkeypatch):
    """The whole command: `run --json` on a node that never answers ends with exit 1, one JSON answer saying
    how long it tried, no token anywhere, and `status` shows no piece as pinned."""
    from mintprep.cli import app
    from tests.conftest import write_collection

    monkeypatch.setenv("MINTPREP_FAULT_TOKEN", TOKENS["kubo"])
    with fault_server("hang") as url:
        path = write_collection(tmp_path / "col", size=1, generator__steps=2, ipfs={
            "backend": "kubo", "api_url": url, "token_env": "MINTPREP_FAULT_TOKEN",
            "request_timeout_s": 0.5, "give_up_after_s": 1.5})
        result = CliRunner().invoke(app, ["run", str(path), "--json"])
    assert result.exit_code == 1, result.output
    answer = json.loads(result.stdout)
    assert answer["ok"] is False and answer["error"]["kind"] == "remote"
    assert "1.5s" in answer["error"]["message"], answer
    assert TOKENS["kubo"] not in result.output
    status = json.loads(CliRunner().invoke(app, ["status", str(path), "--json"]).stdout)
    assert status["counts"].get("pinned", 0) == 0, status

