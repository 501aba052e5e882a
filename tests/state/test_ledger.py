"""The ledger: one writer at a time, schema versioned, rows only for objects that exist."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mintprep.base.errors import LedgerBusy, UserError
from mintprep.state.ledger import GenerationRow, Ledger, PinRow, VerdictRow
from mintprep.state.objects import ObjectCorrupt, ObjectStore


def test_second_writer_gets_a_clear_message(tmp_path: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from mintprep.state.ledger import Ledger
            with Ledger.open(__import__('pathlib').Path({str(tmp_path)!r})):
                print('locked', flush=True); time.sleep(30)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LedgerBusy, match=f"pid {holder.pid}.*writing this collection's ledger"):
            Ledger.open(tmp_path)
        with Ledger.open(tmp_path, readonly=True) as reader:  # readers are never blocked
            assert reader.pieces() == {}
    finally:
        holder.kill()
        holder.wait()
    with Ledger.open(tmp_path):  # the lock dies with its holder, even on SIGKILL
        pass


def test_wal_and_schema_version(tmp_path: Path):
    Ledger.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "state.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(UserError, match="schema version 999"):
        Ledger.open(tmp_path)


def test_a_generation_row_cannot_point_at_a_missing_object(tmp_path: Path):
    with Ledger.open(tmp_path) as ledger:
        with pytest.raises(RuntimeError, match="not stored"):
            ledger.record_generation(GenerationRow("k", 1, "ab" * 32, 0, {}, {}), [])
        assert ledger.generation("k") is None
        digest = ledger.objects.put(b"png bytes")
        ledger.record_generation(GenerationRow("k", 1, digest, 0, {"std": 40.0}, {}), [])
        assert ledger.generation("k").metrics == {"std": 40.0}


def test_object_store_is_content_addressed_and_detects_corruption(tmp_path: Path):
    store = ObjectStore(tmp_path)
    digest = store.put(b"hello")
    assert store.put(b"hello") == digest and store.get(digest) == b"hello"
    assert not list(tmp_path.rglob("*.tmp")), "no temp file may be left behind"
    store.path(digest).write_bytes(b"jello")
    with pytest.raises(ObjectCorrupt, match="corrupt"):
        store.get(digest)
    assert store.put(b"hello") == digest and store.get(digest) == b"hello", "putting the bytes again heals it"


def _record(ledger: Ledger, root: str, token_ids: list[int]) -> None:
    tokens = [{"token_id": t, "name": f"#{t}", "image_cid": "i", "metadata_cid": "m", "png_sha256": "s",
               "attributes": [], "provenance": {}} for t in token_ids]
    sha = ledger.objects.put(json.dumps({"metadata_root": root, "tokens": tokens}).encode())
    ledger.record_manifest(metadata_root=root, manifest_cid=f"cid-{root}", manifest_sha256=sha, provenance_hash="p")


def test_published_ids_are_kept_as_manifests_are_recorded_and_filled_in_for_an_older_ledger(tmp_path: Path):
    with Ledger.open(tmp_path) as ledger:
        _record(ledger, "r1", [1, 2, 3])
        _record(ledger, "r2", [1, 2])  # token 3 dropped from the newer manifest: still published once
        assert ledger.published_token_ids() == {1, 2, 3}
    conn = sqlite3.connect(tmp_path / "state.db")  # as a ledger written before the table existed
    conn.execute("DROP TABLE published_tokens")
    conn.execute("DELETE FROM meta WHERE key='published_tokens_kept'")
    conn.commit()
    conn.close()
    with Ledger.open(tmp_path, readonly=True) as reader:  # read from the manifests, nothing written
        assert reader.published_token_ids() == {1, 2, 3}
    with Ledger.open(tmp_path) as ledger:  # the first writer fills the table once
        assert ledger._one("SELECT COUNT(*) FROM published_tokens")[0] == 3
        _record(ledger, "r3", [4])
    with Ledger.open(tmp_path, readonly=True) as reader:
        assert reader.published_token_ids() == {1, 2, 3, 4}


def test_batched_pin_and_verdict_rows_are_written_together(tmp_path: Path):
    with Ledger.open(tmp_path) as ledger:
        ledger.record_pins([PinRow(f"cid{i}", "local", f"sha{i}", "kubo-cidv1", "image", f"n{i}", None)
                            for i in range(3)])
        ledger.record_pins([])  # nothing to write is not an error
        assert sorted(p["cid"] for p in ledger.active_pins("image")) == ["cid0", "cid1", "cid2"]
        assert ledger.pinned_cid("sha1", "kubo-cidv1", "local") == "cid1"
        ledger.record_verdicts([VerdictRow("a" * 64, "k", False, ["black"], {"guard": "black"}),
                                VerdictRow("b" * 64, "k", True, [], {})])
        assert ledger.verdict("a" * 64, "k") == (False, ["black"], {"guard": "black"})
        assert ledger.verdict("b" * 64, "k") == (True, [], {})


def test_the_newest_manifest_is_named_without_reading_it(tmp_path: Path):
    with Ledger.open(tmp_path) as ledger:
        assert ledger.status_read("k").manifest is None
        _record(ledger, "r1", [1])
        _record(ledger, "r2", [1, 2])
        newest = ledger.current_manifest()
        ledger.objects.path(newest.manifest_sha256).unlink()  # `status` needs only the ledger's row
    with Ledger.open(tmp_path, readonly=True) as reader:
        names = reader.status_read("k").manifest
        assert names == (newest.metadata_root, newest.manifest_cid, newest.provenance_hash)
        assert names.metadata_root == "r2"


def test_verdict_hashes_are_the_recorded_facts_the_duplicate_check_reads(tmp_path: Path):
    facts = {"guard": None, "phash": "a2758139ef1c8e63", "tiles": "33" * 256, "pixels": {"luma_std": 27.8},
             "decided_by": {"guard": "noise"}, "properties": []}
    with Ledger.open(tmp_path) as ledger:
        ledger.record_verdicts([VerdictRow("a" * 64, "k", True, [], facts),
                                VerdictRow("b" * 64, "k", False, ["black"], dict(facts, guard="black")),
                                VerdictRow("c" * 64, "other settings", True, [], facts)])
        hashes = ledger.verdict_hashes(["a" * 64, "b" * 64, "c" * 64], "k")
    assert hashes == {"a" * 64: (True, [], {"guard": None, "phash": facts["phash"], "tiles": facts["tiles"]}),
                      "b" * 64: (False, ["black"], {"guard": "black", "phash": facts["phash"], "tiles": facts["tiles"]})}


def test_verdict_oks_are_the_recorded_outcomes_from_the_ledger_and_the_verdict_cache(tmp_path: Path):
    """The ledger's verdicts, then what a read-only command kept in the verdict cache beside it, each under its own
    settings only."""
    with Ledger.open(tmp_path) as ledger:
        ledger.record_verdicts([VerdictRow("a" * 64, "k", True, [], {}),
                                VerdictRow("b" * 64, "k", False, ["black"], {"guard": "black"}),
                                VerdictRow("c" * 64, "other settings", True, [], {})])
    with Ledger.open(tmp_path, readonly=True) as reader:
        assert reader.keep_verdicts([VerdictRow("d" * 64, "k", False, ["noise"], {"guard": "noise"})]) is None
        oks = reader.verdict_oks(["a" * 64, "b" * 64, "c" * 64, "d" * 64, "e" * 64], "k")
    assert oks == {"a" * 64: True, "b" * 64: False, "d" * 64: False}
