"""How mintprep opens its SQLite files (the ledger, the local store's pin set): one rule for both.

Writers: WAL (readers never block on the writer), `synchronous=FULL` (a committed transaction survives a power
cut), autocommit off only inside `transaction`. Readers: read-only; with no write-ahead log beside the file it is
complete, so `immutable` reads it without creating the -wal/-shm files a WAL database otherwise needs, and a
read-only folder (a backup, a mount) can be read with nothing written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def open_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


def open_reader(path: Path) -> sqlite3.Connection:
    wal = path.with_name(path.name + "-wal")
    mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    return sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, isolation_level=None)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (taken at once, so two writers queue rather than fail midway)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
