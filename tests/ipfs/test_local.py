"""The local backend: real files under a temp state dir, crash safety, pins, verification, GC."""

from __future__ import annotations

import json
import os

import pytest

from mintprep.base.errors import UserError
from mintprep.ipfs.backends import LocalBackend, make_backend
from mintprep.ipfs.settings import IpfsSettings
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.ipfs.verify import VerificationFailed, verify_dag

PROFILE = get_profile("kubo-cidv1").with_options(chunker="size-1000")


def test_pin_writes_blocks_by_multihash_and_records_a_verified_pin(tmp_path) -> None:
    backend = make_backend(IpfsSettings(), tmp_path)
    dag = import_bytes(os.urandom(3500), PROFILE)
    receipt = backend.pin_dag(dag, name="token-1")
    assert (receipt.cid, receipt.backend, receipt.verified) == (str(dag.root), "local", True)
    files = sorted(p.name for p in (tmp_path / "ipfs" / "blocks").rglob("*") if p.is_file())
    assert files == sorted(block.cid.multihash_key for block in dag.blocks)
    assert BlockStore(tmp_path / "ipfs").read_pins() == {str(dag.root): "token-1"}
    assert backend.is_pinned(dag.root) and backend.list_pins() == [str(dag.root)]
    assert backend.pin_dag(dag, name="token-1") == receipt  # idempotent
    assert not list((tmp_path / "ipfs").rglob("*.tmp"))


def test_a_store_pinned_one_file_per_pin_is_migrated_and_read_only_readers_write_nothing(tmp_path) -> None:
    """Stores written before the SQLite pin set kept `pins/<cid>` files ({"name": …}); they stay pinned."""
    old = import_bytes(b"old" * 500, PROFILE)
    new = import_bytes(b"new" * 500, PROFILE)
    store = BlockStore(tmp_path)
    store.put_many([*old.blocks, *new.blocks])
    (tmp_path / "pins").mkdir()
    (tmp_path / "pins" / str(old.root)).write_text(json.dumps({"name": "old"}))
    (tmp_path / "pins" / ".half.tmp").write_text("{")  # an interrupted write of the old layout
    before = sorted(p.name for p in tmp_path.iterdir())
    assert store.read_pins() == {str(old.root): "old"} and store.is_pinned(old.root)  # read as it is
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # a reader writes nothing
    store.add_pins([(new.root, "new")])
    assert not (tmp_path / "pins").exists()
    assert BlockStore(tmp_path).read_pins() == {str(old.root): "old", str(new.root): "new"}
    assert store.remove_pin(old.root) and not store.remove_pin(old.root)
    assert store.read_pins() == {str(new.root): "new"}
    (tmp_path / "pins.db").write_bytes(b"not a database" * 100)
    with pytest.raises(UserError, match="pins.db"):
        store.read_pins()


def test_a_crash_while_writing_leaves_no_half_block(tmp_path, monkeypatch) -> None:
    store = BlockStore(tmp_path)
    dag = import_bytes(os.urandom(3000), PROFILE)

    def crash(*args, **kwargs):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        store.put_many(dag.blocks)
    monkeypatch.undo()
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # neither block nor temp file
    store.put_many(dag.blocks)  # the same command converges
    assert verify_dag(dag.root, store.get).ok


def test_a_block_damaged_on_disk_is_caught_and_the_pin_refused(tmp_path) -> None:
    backend = LocalBackend(tmp_path)
    dag = import_bytes(os.urandom(2500), PROFILE)
    backend.pin_dag(dag, name="token-2")
    leaf = list(dag.blocks)[1].cid
    path = backend.store.path_for(leaf)
    path.write_bytes(b"X" + path.read_bytes()[1:])
    report = backend.verify(dag.root)
    assert not report.ok and report.corrupt == (leaf,)
    other = list(dag.blocks)[2].cid
    backend.store.path_for(other).unlink()
    report = backend.verify(dag.root)
    assert report.missing == (other,) and report.corrupt == (leaf,)
    assert str(leaf) in report.describe()


def test_pin_refused_when_the_store_cannot_give_the_dag_back(tmp_path, monkeypatch) -> None:
    backend = LocalBackend(tmp_path)
    dag = import_bytes(os.urandom(2500), PROFILE)
    monkeypatch.setattr(backend.store, "put_many", lambda blocks: 0)  # an upload that silently lost data
    with pytest.raises(VerificationFailed, match=f"token-3: .*{dag.root}.*missing"):
        backend.pin_dag(dag, name="token-3")
    assert not backend.is_pinned(dag.root)  # "pinned" only ever means verified


def test_unpin_and_garbage_collection_keep_shared_blocks(tmp_path) -> None:
    backend = LocalBackend(tmp_path)
    shared = import_bytes(b"s" * 1000, PROFILE)
    broken = import_directory({"a": shared, "b": import_bytes(b"broken" * 200, PROFILE)}, PROFILE)
    fixed = import_directory({"a": shared, "b": import_bytes(b"fixed" * 200, PROFILE)}, PROFILE)
    backend.pin_dag(broken, name="v1")
    backend.pin_dag(fixed, name="v2")
    backend.unpin(broken.root)
    backend.unpin(broken.root)  # unpinning twice is fine
    assert backend.list_pins() == [str(fixed.root)]
    deleted = backend.collect_garbage()
    assert deleted == len({b.cid for b in broken.blocks} - {b.cid for b in fixed.blocks})
    assert backend.verify(fixed.root).ok


def test_a_damaged_pin_set_is_a_clear_error(tmp_path) -> None:
    backend = LocalBackend(tmp_path)
    (tmp_path / "ipfs" / "pins").mkdir(parents=True)
    (tmp_path / "ipfs" / "pins" / "bafkreidamaged").write_text("{not json")
    with pytest.raises(Exception, match="bafkreidamaged is not valid JSON"):
        backend.list_pins()


def test_a_pin_set_whose_first_writer_was_killed_reads_as_empty(tmp_path) -> None:
    """A kill after SQLite created `pins.db` but before the table was committed leaves an empty database file:
    readers see no pins (not an error), and the next writer makes the table."""
    import sqlite3

    sqlite3.connect(tmp_path / "pins.db").close()  # the file as a killed first writer left it
    assert (tmp_path / "pins.db").exists()
    store, root = BlockStore(tmp_path), import_bytes(b"x" * 10, PROFILE).root
    assert store.read_pins() == {} and not store.is_pinned(root)
    store.add_pins([(root, "x")])
    assert store.read_pins() == {str(root): "x"} and store.is_pinned(root)


@pytest.mark.parametrize("damage", ["a folder in a block's place", "a file in its shard folder's place"])
def test_a_folder_or_file_in_a_blocks_place_is_a_missing_block(tmp_path, damage: str) -> None:
    """Read as "Is a directory" / "Not a directory", naming no block, this stopped `audit` instead of being reported
    as the missing block it is (image-unretrievable)."""
    store = BlockStore(tmp_path / "ipfs")
    dag = import_bytes(os.urandom(2500), PROFILE)
    store.put_many(dag.blocks)
    path = store.path_for(dag.root)
    path.unlink()
    if damage == "a folder in a block's place":
        path.mkdir()
    else:
        for leftover in path.parent.iterdir():
            leftover.unlink()
        path.parent.rmdir()
        path.parent.write_bytes(b"not a folder")
    with pytest.raises(KeyError):  # BlockNotFound, a KeyError
        store.get(dag.root)
    assert not verify_dag(dag.root, LocalBackend(tmp_path).fetch_block).ok
