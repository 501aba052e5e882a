"""state.wal_image against SQLite itself: a WAL database rebuilt in memory from the file and its log holds what
SQLite reads from them, commits in the log included, a transaction torn mid-write or not committed left out.
(The reader that falls back to it on a full disk runs in tests/cli/test_hostile_input_bounds.py, on a real full tmpfs.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mintprep.base.wal_image import committed_image


def rows(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT k, v FROM t ORDER BY k").fetchall()


def in_memory(database: bytes, log: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(bytes(committed_image(database, log)))
    return conn


@pytest.fixture
def logged(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    """A WAL database whose every write is still in its log: three commits, the last one growing the file."""
    writer = sqlite3.connect(tmp_path / "src.db", isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    writer.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"v{i}") for i in range(50)])
    writer.execute("UPDATE t SET v = 'changed' WHERE k < 10")
    writer.executemany("INSERT INTO t VALUES (?, ?)", [(i, "x" * 500) for i in range(50, 400)])  # many pages
    return tmp_path / "src.db", writer


def test_the_log_s_commits_are_read(logged):
    path, writer = logged
    log = path.with_name("src.db-wal").read_bytes()
    assert len(log) > 100_000 and path.stat().st_size <= 4096  # the data is in the log only
    assert rows(in_memory(path.read_bytes(), log)) == rows(writer)


def test_a_torn_or_uncommitted_tail_is_left_out(logged):
    path, writer = logged
    committed = rows(writer)
    before = path.with_name("src.db-wal").stat().st_size
    writer.execute("BEGIN")
    writer.executemany("INSERT INTO t VALUES (?, ?)", [(i, "y" * 900) for i in range(400, 600)])
    writer.execute("SAVEPOINT s")  # pages spill into the log before COMMIT: frames with no commit mark
    writer.execute("PRAGMA cache_size=1")
    writer.executemany("INSERT INTO t VALUES (?, ?)", [(i, "z" * 900) for i in range(600, 900)])
    log = path.with_name("src.db-wal").read_bytes()
    assert len(log) > before  # uncommitted frames are in the log
    assert rows(in_memory(path.read_bytes(), log)) == committed
    assert rows(in_memory(path.read_bytes(), log[:len(log) - 1000])) == committed  # cut mid-frame
    damaged = bytearray(log)
    damaged[-500] ^= 0xFF  # a bit flipped in an uncommitted frame: its checksum fails, the rest is read
    assert rows(in_memory(path.read_bytes(), bytes(damaged))) == committed
    writer.execute("ROLLBACK")


def test_the_copy_for_python_3_10_reads_the_same_and_leaves_no_file(logged, tmp_path, monkeypatch):
    """Python 3.10 has no `deserialize`: the reader's image goes to a temp file, opened and at once unlinked."""
    import tempfile

    from mintprep.base.sqlite import _unlinked_copy

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    path, writer = logged
    image = bytes(committed_image(path.read_bytes(), path.with_name("src.db-wal").read_bytes()))
    conn = _unlinked_copy(image)
    assert list((tmp_path / "temp").iterdir()) == []
    assert rows(conn) == rows(writer) and len(rows(conn)) == 400
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM t")
