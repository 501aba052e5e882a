"""Netlify publishing, against a local http.server that implements the two endpoints of Netlify's
file-digest deploy API (docs.netlify.com/api/get-started "File digest method"):

- POST /api/v1/sites/{site_id}/deploys  {"files": {"/path": sha1}}  -> {"id", "required": [sha1 it lacks], "ssl_url"}
- PUT  /api/v1/deploys/{deploy_id}/files/{path}  (application/octet-stream) -> the stored file

The server keeps the files of earlier deploys, as Netlify does, so a second deploy needs only what changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote

import pytest

from mintprep.base.errors import RemoteError, UserError
from mintprep.net.http import RetryPolicy
from mintprep.page import build_page
from mintprep.page.publish import deploy_to_netlify, netlify_token
from mintprep.collection.page_settings import PublishSettings
from mintprep.base.sitedir import read_tree
from tests.page.conftest import QuietHandler, sample_collection
from tests.support.servers import http_server, reply_json

TOKEN = "nfp_test_token_0123456789"
SITE_ID = "3970e0fe-8564-4903-9a55-c5f8de49fb8b"
FAST = dict(policy=RetryPolicy(attempts=3, base_delay=0), sleep=lambda _: None)


@dataclass
class FakeNetlify:
    stored: dict[str, bytes] = field(default_factory=dict)  # sha1 -> bytes, across deploys
    deploys: dict[str, dict[str, str]] = field(default_factory=dict)
    uploads: list[str] = field(default_factory=list)
    fail_next_posts: int = 0


@pytest.fixture
def netlify() -> Iterator[tuple[FakeNetlify, str]]:
    state = FakeNetlify()

    class Handler(QuietHandler):
        def _reply(self, status: int, body: dict[str, Any]) -> None:
            reply_json(self, status, body)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length", 0)))

        def do_POST(self) -> None:  # noqa: N802
            body = self._body()
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._reply(401, {"code": 401, "message": "Access Denied"})
            if state.fail_next_posts:
                state.fail_next_posts -= 1
                return self._reply(503, {"message": "try again"})
            if self.path != f"/api/v1/sites/{SITE_ID}/deploys":
                return self._reply(404, {"message": "Not Found"})
            files = json.loads(body)["files"]
            deploy_id = f"deploy{len(state.deploys) + 1}"
            state.deploys[deploy_id] = files
            required = sorted({sha for sha in files.values() if sha not in state.stored})
            self._reply(200, {"id": deploy_id, "required": required, "state": "uploading",
                              "ssl_url": "https://mintprep-test.netlify.app"})

        def do_PUT(self) -> None:  # noqa: N802
            body = self._body()
            prefix = "/api/v1/deploys/"
            deploy_id, _, path = self.path.removeprefix(prefix).partition("/files/")
            expected = state.deploys.get(deploy_id, {}).get("/" + unquote(path))
            if self.headers.get("Content-Type") != "application/octet-stream" or expected is None:
                return self._reply(422, {"message": "unexpected file"})
            if hashlib.sha1(body).hexdigest() != expected:
                return self._reply(422, {"message": "digest mismatch"})
            state.stored[expected] = body
            state.uploads.append(unquote(path))
            self._reply(200, {"id": expected, "path": "/" + unquote(path)})

    with http_server(Handler) as url:
        yield state, url


def settings_for(url: str) -> PublishSettings:
    return PublishSettings(target="netlify", netlify_site_id=SITE_ID, netlify_api_url=url)


def test_only_missing_digests_are_uploaded(netlify, collection, tmp_path: Path) -> None:
    state, url = netlify
    manifest = sample_collection(4).manifest
    target = dict(chain_id=8453, rpc_url="https://mainnet.base.org", gateway="https://ipfs.io")
    first = build_page(collection, manifest, tmp_path / "site", contract=None, **target)
    state.fail_next_posts = 1  # a transient 503 is retried
    deploy = deploy_to_netlify(read_tree(first.out_dir), settings_for(url), token=TOKEN, **FAST)
    site_files = tuple(sorted(first.files))
    assert deploy.uploaded == site_files and len(site_files) == 5  # index, _headers, app.js, style.css, 1 chunk
    assert deploy.url == "https://mintprep-test.netlify.app"
    assert sorted(state.uploads) == list(site_files)

    # The contract gets deployed: only index.html (which embeds it) and _headers (its CSP now allows the RPC)
    # change, so only they are sent; the gallery chunk is unchanged.
    second = build_page(collection, manifest, tmp_path / "site", contract="0x" + "ab" * 20, **target)
    state.uploads.clear()
    deploy = deploy_to_netlify(read_tree(second.out_dir), settings_for(url), token=TOKEN, **FAST)
    assert deploy.uploaded == ("_headers", "index.html") and sorted(state.uploads) == ["_headers", "index.html"]
    assert state.deploys[deploy.deploy_id] == {
        f"/{rel}": hashlib.sha1(data).hexdigest() for rel, data in read_tree(second.out_dir).items()
    }
    state.uploads.clear()
    unchanged = deploy_to_netlify(read_tree(second.out_dir), settings_for(url), token=TOKEN, **FAST)
    assert unchanged.uploaded == () and state.uploads == []


def test_rejected_token_is_reported_without_the_token(netlify) -> None:
    _, url = netlify
    with pytest.raises(RemoteError, match="HTTP 401") as raised:
        deploy_to_netlify({"index.html": b"x"}, settings_for(url), token="nfp_wrong_secret", **FAST)
    assert "nfp_wrong_secret" not in str(raised.value)


def test_persistent_outage_is_reported_after_retries(netlify) -> None:
    state, url = netlify
    state.fail_next_posts = 10
    with pytest.raises(RemoteError, match="after 3 attempts"):
        deploy_to_netlify({"index.html": b"x"}, settings_for(url), token=TOKEN, **FAST)
    assert state.fail_next_posts == 7


def test_token_comes_from_the_named_environment_variable(monkeypatch) -> None:
    settings = PublishSettings(target="netlify", netlify_site_id=SITE_ID, netlify_token_env="MY_NETLIFY")
    monkeypatch.delenv("MY_NETLIFY", raising=False)
    with pytest.raises(UserError, match="MY_NETLIFY"):
        netlify_token(settings)
    monkeypatch.setenv("MY_NETLIFY", TOKEN)
    assert netlify_token(settings) == TOKEN
