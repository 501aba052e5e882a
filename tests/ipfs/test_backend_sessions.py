"""The backends' HTTP session reads the environment once per host instead of on every request (requests' own
`trust_env` stats ~/.netrc and scans os.environ per request), and still honours it: HTTP_PROXY / NO_PROXY and a
~/.netrc login. The proxy is a local server that answers as kubo's RPC would (docs.ipfs.tech/reference/kubo/rpc),
recording the absolute-form request lines a proxy receives.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from mintprep.ipfs.backends import KuboBackend
from tests.support.servers import JsonHandler, http_server


def _recording_proxy(seen: list[tuple[str, str | None]]) -> type[BaseHTTPRequestHandler]:
    class Proxy(JsonHandler):
        def do_POST(self) -> None:  # noqa: N802 - stdlib handler name
            seen.append((self.path, self.headers.get("Authorization")))
            self.reply_json(200, {"Keys": {}})

    return Proxy


def test_proxies_no_proxy_and_netrc_are_read_from_the_environment(tmp_path, monkeypatch) -> None:
    seen: list[tuple[str, str | None]] = []
    reached: list[tuple[str, str | None]] = []
    (tmp_path / ".netrc").write_text("machine kubo.example login admin password hunter2\n")
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    with http_server(_recording_proxy(seen)) as proxy, http_server(_recording_proxy(reached)) as direct:
        monkeypatch.setenv("HTTP_PROXY", proxy)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        node = KuboBackend("http://kubo.example:5001")
        assert node.list_pins() == [] and node.list_pins() == []
        assert seen[0][0] == "http://kubo.example:5001/api/v0/pin/ls?type=recursive"  # through the proxy
        assert seen[0][1] is not None and seen[0][1].startswith("Basic ")  # ~/.netrc's login
        assert len(seen) == 2
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # read once per host: a later change is not seen
        node.list_pins()
        assert len(seen) == 3
        KuboBackend(direct).list_pins()  # NO_PROXY: straight to the node
        assert reached == [("/api/v0/pin/ls?type=recursive", None)] and len(seen) == 3
