"""A stored object lost or garbled since it was pinned is read back from its pinned blocks (checked against its CID
and its sha256), put back by a command that writes the ledger, and reported as it was by one that does not.

Found by trying it: with `.mintprep/objects/` gone (a folder cleaned or copied without it), `audit`, `export` and
`run` each stopped at the manifest's object with a bare "No such file or directory", though every byte was still
pinned.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.base import ObjectCorrupt, ObjectMissing, StateDir
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
from mintprep.ipfs.cid import as_cid
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import PROFILES, import_bytes
from mintprep.state import Workspace
from mintprep.state.ledger import Ledger, PinRow
from tests.conftest import write_collection
from tests.ipfs.fakes import FakeKubo, running

ART = b"\x89PNG pretend art, pinned once" * 40


def _pinned(state_dir: Path, data: bytes) -> tuple[str, str]:
    """`data` stored as an object and pinned to the local block store with a ledger row: (sha256, CID)."""
    dag = import_bytes(data, PROFILES["kubo-cidv1"])
    BlockStore(StateDir(state_dir).ipfs).put_many(dag.blocks)
    with Ledger.open(state_dir) as ledger:
        sha = ledger.objects.put(data)
        ledger.record_pins([PinRow(str(dag.root), "local", sha, "kubo-cidv1", "image", "art", None)])
    return sha, str(dag.root)


def test_a_lost_object_is_read_from_its_pinned_blocks_and_put_back_by_the_writer_only(tmp_path: Path):
    sha, _ = _pinned(tmp_path, ART)
    with Ledger.open(tmp_path) as ledger:
        path = ledger.objects.path(sha)
    path.unlink()
    with Ledger.open(tmp_path, readonly=True) as reader:
        assert reader.objects.get(sha) == ART
        assert not reader.objects.intact(sha)  # a read-only command reports the store as it found it
    assert not path.exists()
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"garbled")
    with Ledger.open(tmp_path) as writer:
        assert writer.objects.get(sha) == ART
    assert path.read_bytes() == ART


def test_an_object_with_no_readable_pinned_copy_is_an_error_that_says_why(tmp_path: Path):
    sha, cid = _pinned(tmp_path, ART)
    with Ledger.open(tmp_path) as ledger:
        unpinned = ledger.objects.put(b"never pinned")
        ledger.objects.path(unpinned).unlink()
        with pytest.raises(ObjectMissing, match="is missing, and no pinned copy of it could be read .the ledger "
                                                "records no pin of it"):
            ledger.objects.get(unpinned)
        ledger.objects.path(sha).write_bytes(b"garbled")
        BlockStore(StateDir(tmp_path).ipfs).path_for(as_cid(cid)).write_bytes(b"rotted too")
        with pytest.raises(ObjectCorrupt, match=f"is corrupt: its bytes hash to .*ipfs://{cid}") as raised:
            ledger.objects.get(sha)
        assert not isinstance(raised.value, ObjectMissing)


def test_a_collection_whose_object_store_is_gone_is_audited_repaired_and_exported(tmp_path: Path):
    path = write_collection(tmp_path / "c", size=3, generator__steps=2)
    assert run_collection(load_collection(path)).exit_code == 0
    objects = StateDir(path.parent / ".mintprep").objects
    before = {f.relative_to(objects): f.read_bytes() for f in objects.rglob("*") if f.is_file()}
    shutil.rmtree(objects)

    audited = CliRunner().invoke(app, ["audit", str(path), "--json"])
    assert audited.exit_code == 1, audited.output
    problems = json.loads(audited.stdout)["problems"]
    assert {(p["token_id"], p["kind"]) for p in problems} == {(t, "object-corrupt") for t in (1, 2, 3)}
    assert not objects.exists(), "audit reads the pinned copies but writes nothing"

    exported = CliRunner().invoke(app, ["export", str(path), "-o", str(tmp_path / "out"), "--json"])
    assert exported.exit_code == 0, exported.output
    images = {f.name: f.read_bytes() for f in (tmp_path / "out" / "images").iterdir()}
    assert set(images.values()) <= set(before.values()) and len(images) == 3

    repaired = CliRunner().invoke(app, ["audit", str(path), "--repair", "--json"])
    assert repaired.exit_code == 0, repaired.output
    assert CliRunner().invoke(app, ["audit", str(path), "--json"]).exit_code == 0
    after = {f.relative_to(objects): f.read_bytes() for f in objects.rglob("*") if f.is_file()}
    assert {name: after[name] for name in before if name in after} == {name: before[name] for name in after
                                                                      if name in before}
    assert len(after) >= 4  # the three images and the manifest, at least, are back


def test_a_lost_object_is_read_from_a_remote_backend(tmp_path: Path):
    """With `ipfs.backend: kubo` (a local server following kubo's RPC API, tests/ipfs/fakes.py: no daemon runs
    here) the blocks are on the node only: a command's Workspace reads them back from there."""
    node = FakeKubo(BlockStore(tmp_path / "kubo-node"))
    with running(node) as url:
        path = write_collection(tmp_path / "c", size=2, generator__steps=2,
                                ipfs={"backend": "kubo", "api_url": url, "profile": "kubo-cidv1"})
        col = load_collection(path)
        assert run_collection(col).exit_code == 0
        shutil.rmtree(StateDir(col.state_dir).objects)
        asked = len(node.script.requests)
        with Workspace.open(col, readonly=True) as ws:
            record = ws.ledger.current_manifest()
        assert [t.token_id for t in record.manifest.tokens] == [1, 2]
        assert any("block/get" in request for request in node.script.requests[asked:])


@pytest.mark.parametrize("damage", ["a folder in the object's place", "a file in its shard folder's place"])
def test_a_folder_or_file_where_the_object_belongs_reads_as_lost(tmp_path: Path, damage: str):
    """Read as "Is a directory" / "Not a directory", naming no file, these stopped every command; they are a lost
    object like any other, read from its pinned copy."""
    sha, _ = _pinned(tmp_path, ART)
    with Ledger.open(tmp_path) as ledger:
        path = ledger.objects.path(sha)
    path.unlink()
    if damage == "a folder in the object's place":
        path.mkdir()
    else:
        shutil.rmtree(path.parent)
        path.parent.write_bytes(b"not a folder")
    with Ledger.open(tmp_path, readonly=True) as reader:
        assert reader.objects.get(sha) == ART and not reader.objects.intact(sha)
    with Ledger.open(tmp_path) as writer:
        assert writer.objects.get(sha) == ART  # its copy cannot be put back there; the bytes still serve
