"""Requests through a SOCKS5 proxy (ALL_PROXY=socks5h://..., as a user behind one sets it) reach the service and
keep their deadline: the proxy's connections get the same bounded reads and writes as direct ones
(mintprep.net.http.DeadlineAdapter). The proxy is a local SOCKS5 server (RFC 1928) relaying to local servers:
one that answers as kubo's RPC does (docs.ipfs.tech/reference/kubo/rpc), and the faulty ones of
tests/net/test_network_faults.py."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from mintprep.base.errors import MintprepError
from mintprep.ipfs.backends import KuboBackend
from tests.support.servers import JsonHandler, http_server, socks5_proxy
from tests.net.test_network_faults import POLICY, SLACK, fault_server


class _Kubo(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802 - stdlib handler name
        self.reply_json(200, {"Keys": {}})


@pytest.fixture
def through_socks(monkeypatch: pytest.MonkeyPatch):
    """Yields (connects, url_of): ALL_PROXY points at a local SOCKS5 proxy; url_of names a local server by a
    host name only the proxy can resolve (socks5h), so a request that bypassed the proxy could not connect."""
    for name in ("NO_PROXY", "no_proxy", "HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    connects: list[tuple[str, int]] = []
    with socks5_proxy(connects) as proxy:
        monkeypatch.setenv("ALL_PROXY", proxy)
        yield connects, lambda url: f"http://kubo.socks.invalid:{urlsplit(url).port}"


def test_a_request_through_a_socks_proxy_reaches_the_node(through_socks):
    connects, url_of = through_socks
    with http_server(_Kubo) as url:
        assert KuboBackend(url_of(url), policy=POLICY).list_pins() == []
    assert connects == [("kubo.socks.invalid", urlsplit(url).port)]


@pytest.mark.parametrize("mode", ["trickle-body", "trickle-headers", "hang"])
def test_a_faulty_node_behind_a_socks_proxy_ends_within_the_deadline(through_socks, mode: str):
    connects, url_of = through_socks
    with fault_server(mode) as url:
        started = time.monotonic()
        with pytest.raises(MintprepError, match="kubo.socks.invalid"):
            KuboBackend(url_of(url), policy=POLICY).list_pins()
        took = time.monotonic() - started
    assert took < POLICY.give_up_after + SLACK, f"a {mode} node behind SOCKS took {took:.1f}s"
    assert connects and all(host == "kubo.socks.invalid" for host, _ in connects)
