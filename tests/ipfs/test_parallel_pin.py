"""Pinning many pieces against local servers that follow the kubo RPC and Pinata's API (tests/ipfs/fakes.py), each
request taking 100 ms as a remote service's round trip does: concurrency is bounded by `ipfs.pin_concurrency`,
kubo takes many pieces per CAR, a refused piece fails alone and a rerun pins only the refused ones."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.settings import IpfsSettings
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import get_profile, import_bytes
from mintprep.base.hashing import sha256_hex
from mintprep.state.ledger import Ledger
from mintprep.stages.pin import PinItem, PinsFailed, pin_pieces
from tests.ipfs.fakes import FakeKubo, FakePinata, Script, running

PROFILE = get_profile("kubo-cidv1")
PIECES = 1000
CONCURRENCY = 16
TOKEN = "pinata-test-token"


def _items() -> list[PinItem]:
    payloads = [f"piece {i} ".encode() * 20 for i in range(PIECES)]
    return [PinItem(sha256_hex(data), lambda data=data: import_bytes(data, PROFILE), "image", f"T-{i}.png")
            for i, data in enumerate(payloads)]


def _refused(items: list[PinItem]) -> list[int]:
    return [i for i in range(len(items)) if i % 20 == 7]  # 5%


@contextlib.contextmanager
def _service(kind: str, tmp_path: Path, script: Script):
    store = BlockStore(tmp_path / "service")
    if kind == "kubo":
        fake = FakeKubo(store, script)
        with running(fake) as url:
            yield fake, IpfsSettings(backend="kubo", api_url=url, pin_concurrency=CONCURRENCY)
        return
    fake = FakePinata(TOKEN, store, script)
    gateway = serve_gateway(store)
    try:
        with running(fake) as url:
            yield fake, IpfsSettings(backend="pinata", api_url=url, upload_url=url, token_env="PINATA_TEST_JWT",
                                     gateway=f"http://127.0.0.1:{gateway.server_address[1]}",
                                     pin_concurrency=CONCURRENCY)
    finally:
        gateway.shutdown()
        gateway.server_close()


def _uploads(fake, kind: str) -> int:
    marker = "POST /api/v0/dag/import" if kind == "kubo" else "POST /v3/files"
    return sum(r.startswith(marker) for r in fake.script.requests)


@pytest.mark.parametrize("kind", ["kubo", "pinata"])
@pytest.mark.slow
def test_a_thousand_pieces_pin_in_parallel_and_a_refused_few_fail_alone(kind: str, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINATA_TEST_JWT", TOKEN)
    items = _items()
    refused = _refused(items)
    roots = [str(item.make_dag().root) for item in items]
    script = Script(delay_s=0.1, refuse={roots[i] for i in refused} if kind == "kubo"
                    else {items[i].name for i in refused})
    with _service(kind, tmp_path, script) as (fake, settings), Ledger.open(tmp_path / "state") as ledger:
        backend = make_backend(settings, tmp_path / "state")
        advanced = []
        with pytest.raises(PinsFailed) as failure:
            pin_pieces(ledger, backend, PROFILE, items, lambda: advanced.append(1))
        assert list(failure.value.failed) == [items[i].name for i in refused]  # named, in token order
        assert str(failure.value).startswith(f"{len(refused)} of {PIECES} pieces could not be pinned")
        assert "T-7.png" in str(failure.value) and "and 30 more" in str(failure.value)
        assert len(advanced) == PIECES
        pinned = [i for i in range(PIECES) if ledger.pinned_cid(items[i].content_sha256, PROFILE.name,
                                                                backend.ledger_key)]
        assert pinned == [i for i in range(PIECES) if i not in set(refused)]
        assert 1 < script.max_in_flight <= CONCURRENCY
        if kind == "kubo":
            assert _uploads(fake, kind) < PIECES / 10, "kubo should take many pieces per CAR"
            assert set(fake.pins) == {roots[i] for i in pinned}
        else:
            assert {f["cid"] for f in fake.files.values()} == {roots[i] for i in pinned}

        script.refuse.clear()
        uploads_before = _uploads(fake, kind)
        outcomes = pin_pieces(ledger, backend, PROFILE, items)
    assert [o.cid for o in outcomes] == roots  # in item order, whatever order they finished in
    assert [i for i, o in enumerate(outcomes) if o.newly_pinned] == refused  # the rerun pins only those
    assert 0 < _uploads(fake, kind) - uploads_before <= len(refused)


def test_kubo_answering_a_foreign_root_in_a_batch_fails_only_the_piece_it_replaced(tmp_path: Path) -> None:
    items = _items()[:6]
    other = str(import_bytes(b"not one of ours", PROFILE).root)
    with _service("kubo", tmp_path, Script(lie_root=other)) as (fake, settings), \
            Ledger.open(tmp_path / "state") as ledger:
        backend = make_backend(settings.model_copy(update={"pin_concurrency": 1}), tmp_path / "state")
        with pytest.raises(PinsFailed) as failure:
            pin_pieces(ledger, backend, PROFILE, items)
    assert _uploads(fake, "kubo") == 1  # six pieces, one CAR
    assert list(failure.value.failed) == [item.name for item in items]
    assert all(f"kubo answered root CID '{other}'" in reason for reason in failure.value.failed.values())


def test_kubo_reads_a_many_block_piece_back_in_one_request(tmp_path: Path) -> None:
    dag = import_bytes(bytes(range(256)) * 12, PROFILE.with_options(chunker="size-1000"))  # 4 leaves and a root
    with _service("kubo", tmp_path, Script()) as (fake, settings):
        make_backend(settings, tmp_path / "state").pin_dag(dag, name="T-1.png")
    commands = [r.split("?")[0] for r in fake.script.requests]
    assert commands == ["POST /api/v0/dag/import", "POST /api/v0/pin/add", "POST /api/v0/dag/export"]
    assert len(list(dag.blocks)) == 5
