"""`ipfs.backend: cluster` against a local server that follows IPFS Cluster's documented REST API
(ipfscluster.io/documentation/reference/api; FakeCluster in fakes.py): no Cluster can run here.

The stand-in keeps the CAR's blocks in a real block store that mintprep's own gateway serves, so the read-back that
proves each pin is real. Shown: pin, status polled until `pinned` on replication_min peers, unpin; a peer that never
reports pinned given up on within the stated deadline; a root other than ours refused; credentials (basic or
bearer) never in an error, even when the server echoes them.
"""

from __future__ import annotations

import base64
import time

import pytest
from pydantic import ValidationError

from mintprep.base.errors import ConfigError, RemoteError
from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
from mintprep.ipfs.backends import CidMismatch, ClusterBackend, PinRequest, make_backend
from mintprep.ipfs.settings import IpfsSettings
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import import_bytes
from mintprep.ipfs.verify import verify_dag
from tests.conftest import write_collection
from tests.ipfs.fakes import FakeCluster, Script, running
from tests.ipfs.test_backends import PROFILE, Sleeps, _piece, gateway_over

USER, PASSWORD = "admin", "cluster-pass-9f3k"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
TOKEN = "jwt-cluster-token-77x"


def _settings(url: str, gateway: str = "https://ipfs.io", **cluster: object) -> IpfsSettings:
    return IpfsSettings(backend="cluster", api_url=url, gateway=gateway,
                        cluster={"basic_auth_env": "CLUSTER_AUTH", **cluster})


def _assert_no_credentials(text: str) -> None:
    for secret in (PASSWORD, f"{USER}:{PASSWORD}", BASIC.removeprefix("Basic "), TOKEN):
        assert secret not in text


def test_cluster_pins_polls_until_replicated_verifies_lists_and_unpins(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CLUSTER_AUTH", f"{USER}:{PASSWORD}")
    hosted = BlockStore(tmp_path / "cluster")
    fake = FakeCluster(hosted, BASIC, polls_until_pinned=3)
    sleeps = Sleeps()
    dag = _piece()
    with running(fake) as url, gateway_over(hosted) as gateway:
        backend = make_backend(_settings(url, gateway, replication_min=2, replication_max=2), tmp_path, sleep=sleeps)
        assert isinstance(backend, ClusterBackend)
        receipt = backend.pin_dag(dag, name="token-1")
        assert (receipt.cid, receipt.backend, receipt.verified) == (str(dag.root), "cluster", True)
        pin = fake.pins[str(dag.root)]
        assert (pin["name"], pin["min"], pin["max"], pin["allocations"]) == ("token-1", 2, 2, ["peer-a", "peer-b"])
        assert pin["polls"] == 3  # pinning, pinning, pinned: polled with backoff
        assert sleeps == pytest.approx([0.25, 0.5], abs=0.05)
        assert backend.is_pinned(dag.root) and backend.list_pins() == [str(dag.root)]
        backend.unpin(dag.root)
        backend.unpin(dag.root)  # not pinned any more: not an error (the server answers 404)
        assert fake.pins == {} and not backend.is_pinned(dag.root) and backend.list_pins() == []
    add = next(r for r in fake.script.requests if r.startswith("POST /add"))
    assert "format=car" in add and "replication-min=2" in add and "replication-max=2" in add


def test_pieces_waiting_for_replication_hold_no_worker(tmp_path, monkeypatch) -> None:
    """One worker, three pieces each replicated on the third look: every add goes before any piece's second look."""
    monkeypatch.setenv("CLUSTER_AUTH", f"{USER}:{PASSWORD}")
    hosted = BlockStore(tmp_path / "cluster")
    fake = FakeCluster(hosted, BASIC, polls_until_pinned=3)
    dags = [import_bytes(f"cluster piece {i}".encode() * 40, PROFILE) for i in range(3)]
    with running(fake) as url, gateway_over(hosted) as gateway:
        backend = ClusterBackend(url, gateway=gateway, basic_auth=(USER, PASSWORD), concurrency=1)
        outcomes = dict(backend.pin_many([PinRequest(f"token-{i}", lambda dag=dag: dag) for i, dag in enumerate(dags)]))
    assert [outcomes[i].cid for i in range(3)] == [str(dag.root) for dag in dags]
    kinds = [request.split("?")[0] for request in fake.script.requests]
    assert kinds.count("POST /add") == 3 and all(pin["polls"] == 3 for pin in fake.pins.values())
    second_looks = [i for i, kind in enumerate(kinds) if kind == f"GET /pins/{dags[0].root}"][1:]
    assert max(i for i, kind in enumerate(kinds) if kind == "POST /add") < min(second_looks)


def test_a_peer_that_never_reports_pinned_is_given_up_within_the_deadline(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CLUSTER_AUTH", f"{USER}:{PASSWORD}")
    hosted = BlockStore(tmp_path / "cluster")
    fake = FakeCluster(hosted, BASIC, stuck={"peer-b"},
                       failing={"peer-c": f"fetching from http://{USER}:{PASSWORD}@10.0.0.9: timeout"})
    with running(fake) as url:
        backend = make_backend(_settings(url, replication_min=2, replication_max=3, replicated_within_s=1.0), tmp_path)
        started = time.monotonic()
        with pytest.raises(RemoteError) as failure:
            backend.pin_dag(_piece(), name="token-5")
        elapsed = time.monotonic() - started
    message = str(failure.value)
    assert 1.0 <= elapsed < 2.0, elapsed
    assert message.startswith("token-5: IPFS Cluster reports ") and "pinned on 1 of the 2 peers required" in message
    assert "after 1s (ipfs.cluster.replicated_within_s)" in message
    assert "peer-a: pinned" in message and "peer-b: pinning" in message and "peer-c: pin_error (fetching from" in message
    _assert_no_credentials(message)


def test_a_root_other_than_ours_is_refused(tmp_path) -> None:
    other = str(import_bytes(b"something else", PROFILE).root)
    fake = FakeCluster(BlockStore(tmp_path / "cluster"), f"Bearer {TOKEN}", script=Script(lie_root=other))
    with running(fake) as url, pytest.raises(CidMismatch, match=f"token-2: cluster answered root CID '{other}'"):
        ClusterBackend(url, gateway="https://ipfs.io", token=TOKEN).pin_dag(_piece(), name="token-2")
    assert not any(r.startswith("GET /pins/") for r in fake.script.requests)  # nothing polled for a refused root


@pytest.mark.parametrize("login", ["basic", "bearer"])
def test_credentials_never_shown_even_when_the_server_echoes_them(tmp_path, monkeypatch, login) -> None:
    monkeypatch.setenv("CLUSTER_AUTH", f"{USER}:{PASSWORD}")
    monkeypatch.setenv("CLUSTER_TOKEN", TOKEN)
    fake = FakeCluster(BlockStore(tmp_path / "cluster"), "Basic something-else", echo_credentials=True)
    settings = (_settings if login == "basic" else
                lambda url: IpfsSettings(backend="cluster", api_url=url, token_env="CLUSTER_TOKEN"))
    with running(fake) as url:
        backend = make_backend(settings(url), tmp_path)
        with pytest.raises(RemoteError, match="HTTP 401: .*invalid credentials: ") as failure:
            backend.pin_dag(_piece(), name="token-3")
    assert "***" in str(failure.value)  # the echoed header was there, and was blanked
    _assert_no_credentials(str(failure.value))


def test_cluster_settings_are_checked_before_any_work(tmp_path, monkeypatch) -> None:
    with pytest.raises(ValidationError, match="replication_max .1. is below replication_min .2."):
        _settings("http://127.0.0.1:9094", replication_min=2, replication_max=1)
    with pytest.raises(ValidationError, match="ipfs.api_url is required for backend 'cluster'"):
        IpfsSettings(backend="cluster")
    with pytest.raises(ValidationError, match="set one"):
        IpfsSettings(backend="cluster", api_url="http://127.0.0.1:9094", token_env="T",
                     cluster={"basic_auth_env": "CLUSTER_AUTH"})
    monkeypatch.setenv("CLUSTER_AUTH", PASSWORD)  # no user: part
    with pytest.raises(ConfigError, match="CLUSTER_AUTH must hold user:password") as failure:
        make_backend(_settings("http://127.0.0.1:9094"), tmp_path)
    assert failure.value.field == "ipfs.cluster.basic_auth_env" and PASSWORD not in str(failure.value)


@pytest.mark.slow
def test_run_pins_a_collection_on_the_cluster_and_a_rerun_pins_nothing(tmp_path, monkeypatch) -> None:
    """`mintprep run` end to end: every piece, the metadata root and the manifest replicated, read back, recorded."""
    monkeypatch.setenv("CLUSTER_AUTH", f"{USER}:{PASSWORD}")
    hosted = BlockStore(tmp_path / "cluster")
    fake = FakeCluster(hosted, BASIC, polls_until_pinned=1)
    with running(fake) as url, gateway_over(hosted) as gateway:
        path = write_collection(tmp_path / "c", size=3, generator__steps=2, ipfs={
            "backend": "cluster", "api_url": url, "gateway": gateway, "cluster": {"basic_auth_env": "CLUSTER_AUTH"}})
        report = run_collection(load_collection(path))
        assert report.exit_code == 0 and report.pinned == 3
        again = run_collection(load_collection(path))
        assert again.pinned == 0 and again.pin_skipped == 3
    assert report.metadata_root in fake.pins and verify_dag(report.metadata_root, hosted.get).ok
    assert all(pin["min"] == 2 and pin["max"] == 3 for pin in fake.pins.values()) and len(fake.pins) >= 5
