"""The ledger: one writer at a time, schema versioned, rows only for objects that exist."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mintprep.base.errors import LedgerBusy, UserError
from mintprep.state.ledger import GenerationRow, Ledger
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
