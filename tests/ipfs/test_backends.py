"""Remote backends against local servers that follow each service's documented API (see fakes.py).

Upload, status, unpin; a differing root CID refused; 429 + Retry-After and 5xx retried; a gateway
serving a corrupted block caught by verification; tokens read from the env var the config names.
"""

from __future__ import annotations

import contextlib
import os

import pytest

from mintprep.base.errors import ConfigError, RemoteError
from mintprep.net.http import RetryPolicy
from mintprep.ipfs.backends import CidMismatch, KuboBackend, make_backend
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.settings import IpfsSettings
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.ipfs.verify import VerificationFailed
from tests.ipfs.fakes import FakeKubo, FakePinata, FakePsa, Script, running

PROFILE = get_profile("kubo-cidv1").with_options(chunker="size-1000")
TOKEN = "s3cret-token-value"


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _piece():
    return import_directory({"1.png": import_bytes(os.urandom(4200), PROFILE), "1.json": import_bytes(b"{}", PROFILE)}, PROFILE)


@contextlib.contextmanager
def gateway_over(store: BlockStore):
    server = serve_gateway(store)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_kubo_upload_pin_status_list_unpin(tmp_path) -> None:
    fake = FakeKubo(BlockStore(tmp_path / "node"))
    dag = _piece()
    with running(fake) as url:
        backend = make_backend(IpfsSettings(backend="kubo", api_url=url), tmp_path)
        receipt = backend.pin_dag(dag, name="token-1")
        assert (receipt.cid, receipt.backend, receipt.verified) == (str(dag.root), "kubo", True)
        assert fake.pins[str(dag.root)] == "token-1"
        assert backend.is_pinned(dag.root) and backend.list_pins() == [str(dag.root)]
        backend.unpin(dag.root)
        backend.unpin(dag.root)  # idempotent
        assert not backend.is_pinned(dag.root) and backend.list_pins() == []
    assert any(r.startswith("POST /api/v0/dag/import") for r in fake.script.requests)


def test_kubo_root_that_differs_is_refused(tmp_path) -> None:
    other = str(import_bytes(b"something else", PROFILE).root)
    fake = FakeKubo(BlockStore(tmp_path / "node"), Script(lie_root=other))
    dag = _piece()
    with running(fake) as url, pytest.raises(CidMismatch, match=f"token-9: kubo answered root CID '{other}' but the local CID is {dag.root}"):
        KuboBackend(url).pin_dag(dag, name="token-9")


def test_kubo_429_with_retry_after_and_503_are_retried(tmp_path) -> None:
    fake = FakeKubo(BlockStore(tmp_path / "node"), Script(failures=[(429, {"Retry-After": "7"}), (503, {})]))
    sleeps = Sleeps()
    with running(fake) as url:
        KuboBackend(url, sleep=sleeps).pin_dag(_piece(), name="token-1")
    assert sleeps == [7.0, 1.0]  # Retry-After honoured, then exponential backoff
    assert [r.split("?")[0] for r in fake.script.requests[:3]] == ["POST /api/v0/dag/import"] * 3


def test_an_unparsable_retry_after_falls_back_to_backoff(tmp_path) -> None:
    """RFC 9110 allows only seconds or an HTTP-date; a proxy that sends anything else is still an outage to retry."""
    fake = FakeKubo(BlockStore(tmp_path / "node"), Script(failures=[(503, {"Retry-After": "soon"})]))
    sleeps = Sleeps()
    with running(fake) as url:
        KuboBackend(url, sleep=sleeps).pin_dag(_piece(), name="token-1")
    assert sleeps == [0.5]


def test_kubo_persistent_outage_is_reported_not_swallowed(tmp_path) -> None:
    fake = FakeKubo(BlockStore(tmp_path / "node"), Script(failures=[(502, {})] * 10))
    with running(fake) as url, pytest.raises(RemoteError, match="after 3 attempts: HTTP 502"):
        KuboBackend(url, policy=RetryPolicy(attempts=3), sleep=Sleeps()).pin_dag(_piece(), name="token-1")


def test_kubo_serving_a_corrupted_block_is_caught(tmp_path) -> None:
    dag = _piece()
    leaf = list(dag.blocks)[-1].cid
    fake = FakeKubo(BlockStore(tmp_path / "node"), serve_corrupted={str(leaf)})
    with running(fake) as url, pytest.raises(VerificationFailed, match=f"token-4: pinned to kubo .*{dag.root}.*corrupt.*{leaf}"):
        KuboBackend(url).pin_dag(dag, name="token-4")


def test_psa_pins_polls_verifies_via_gateway_and_unpins(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PSA_TOKEN", TOKEN)
    network = BlockStore(tmp_path / "network")  # the content is already reachable (e.g. from kubo)
    dag = _piece()
    network.put_many(dag.blocks)
    fake = FakePsa(TOKEN)
    sleeps = Sleeps()
    with running(fake) as url, gateway_over(network) as gateway:
        settings = IpfsSettings(backend="psa", api_url=url, token_env="PSA_TOKEN", gateway=gateway)
        backend = make_backend(settings, tmp_path, sleep=sleeps)
        receipt = backend.pin_dag(dag, name="token-1")
        assert receipt.verified and receipt.remote_id in fake.statuses
        assert sleeps == pytest.approx([0.25, 0.5], abs=0.05)  # queued -> pinning -> pinned, polled with backoff
        assert [r.split("?")[0] for r in fake.script.requests] == ["GET /pins", "POST /pins", "GET /pins", "GET /pins"]
        assert backend.is_pinned(dag.root) and backend.list_pins() == [str(dag.root)]
        again = backend.pin_dag(dag, name="token-1")  # already pinned: no second request
        assert again.remote_id == receipt.remote_id and len(fake.statuses) == 1
        backend.unpin(dag.root)
        assert fake.statuses == {} and not backend.is_pinned(dag.root)


def test_psa_differing_cid_and_missing_token(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PSA_TOKEN", TOKEN)
    fake = FakePsa(TOKEN, Script(lie_root=str(import_bytes(b"other", PROFILE).root)))
    with running(fake) as url:
        backend = make_backend(IpfsSettings(backend="psa", api_url=url, token_env="PSA_TOKEN"), tmp_path)
        with pytest.raises(CidMismatch):
            backend.pin_dag(_piece(), name="token-1")
    monkeypatch.delenv("PSA_TOKEN")
    with pytest.raises(ConfigError, match="PSA_TOKEN is not set") as caught:
        make_backend(IpfsSettings(backend="psa", api_url="http://x", token_env="PSA_TOKEN"), tmp_path)
    assert TOKEN not in str(caught.value)


def test_psa_wrong_token_is_an_error_without_the_token(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PSA_TOKEN", "wrong-" + TOKEN)
    with running(FakePsa(TOKEN)) as url:
        backend = make_backend(IpfsSettings(backend="psa", api_url=url, token_env="PSA_TOKEN"), tmp_path)
        with pytest.raises(RemoteError, match="HTTP 401") as caught:
            backend.pin_dag(_piece(), name="token-1")
    assert TOKEN not in str(caught.value)


def test_pinata_car_upload_verify_list_unpin(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PINATA_JWT", TOKEN)
    hosted = BlockStore(tmp_path / "pinata")
    fake = FakePinata(TOKEN, hosted, Script(failures=[(429, {"Retry-After": "3"})]))
    sleeps = Sleeps()
    dag = _piece()
    with running(fake) as url, gateway_over(hosted) as gateway:
        settings = IpfsSettings(backend="pinata", token_env="PINATA_JWT", api_url=url, upload_url=url, gateway=gateway)
        backend = make_backend(settings, tmp_path, sleep=sleeps)
        receipt = backend.pin_dag(dag, name="token-1")
        assert receipt.verified and receipt.remote_id in fake.files and sleeps == [3.0]
        assert backend.is_pinned(dag.root) and backend.list_pins() == [str(dag.root)]
        backend.unpin(dag.root)
        assert fake.files == {} and not backend.is_pinned(dag.root)


def test_pinata_differing_cid_refused_and_corrupt_gateway_caught(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PINATA_JWT", TOKEN)
    hosted = BlockStore(tmp_path / "pinata")
    dag = _piece()
    lying = FakePinata(TOKEN, hosted, Script(lie_root=str(import_bytes(b"other", PROFILE).root)))
    with running(lying) as url:
        backend = make_backend(IpfsSettings(backend="pinata", token_env="PINATA_JWT", api_url=url, upload_url=url), tmp_path)
        with pytest.raises(CidMismatch, match="token-1: pinata answered"):
            backend.pin_dag(dag, name="token-1")
    honest = FakePinata(TOKEN, hosted)
    with running(honest) as url, gateway_over(hosted) as gateway:
        settings = IpfsSettings(backend="pinata", token_env="PINATA_JWT", api_url=url, upload_url=url, gateway=gateway)
        backend = make_backend(settings, tmp_path)
        backend.pin_dag(dag, name="token-1")
        leaf = list(dag.blocks)[2].cid
        path = hosted.path_for(leaf)
        path.write_bytes(bytes([path.read_bytes()[0] ^ 1]) + path.read_bytes()[1:])
        report = backend.verify(dag.root)
        assert not report.ok and report.corrupt == (leaf,)
        path.unlink()
        assert backend.verify(dag.root).missing == (leaf,)


def test_credentials_in_the_api_url_never_reach_an_error(tmp_path) -> None:
    """kubo behind basic auth: `http://user:secret@host` must not be echoed by a failure message."""
    from mintprep.base.errors import RemoteError
    from mintprep.net.http import RetryPolicy, send

    fake = FakeKubo(BlockStore(tmp_path / "node"), Script(failures=[(502, {})] * 3))
    with running(fake) as url:
        with_credentials = url.replace("http://", "http://admin:hunter2@")
        with pytest.raises(RemoteError) as failure:
            send("POST", f"{with_credentials}/api/v0/pin/ls", policy=RetryPolicy(attempts=3), sleep=lambda s: None)
    assert "hunter2" not in str(failure.value) and "admin" not in str(failure.value)
    assert url.removeprefix("http://") in str(failure.value)
