"""How mintprep opens its SQLite files (the ledger, the local store's pin set): one rule for both.

Writers: WAL (readers never block on the writer), `synchronous=FULL` (a committed transaction survives a power
cut), autocommit off only inside `transaction`. Readers: read-only; with no write-ahead log beside the file it is
complete, so `immutable` reads it without creating the -wal/-shm files a WAL database otherwise needs, and a
read-only folder (a backup, a mount) can be read with nothing written. With a log beside it SQLite needs room
for its -shm index; where there is none (a full disk, a read-only folder) the reader gets the file and the log's
committed pages as an in-memory copy (state.wal_image) instead, so a read-only command never fails, nor calls a
healthy ledger damaged, for want of space.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mintprep.base.wal_image import committed_image

# SQLite primary result codes (https://www.sqlite.org/rescode.html) of a WAL reader that could not create or grow
# its -shm index: READONLY (CANTINIT), IOERR (SHMSIZE, SHMOPEN...), FULL, CANTOPEN. Never CORRUPT or NOTADB.
_NO_ROOM_FOR_INDEX = frozenset({8, 10, 13, 14})


def open_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


def open_reader(path: Path) -> sqlite3.Connection:
    wal = path.with_name(path.name + "-wal")
    if not wal.exists():
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None)
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the first read opens the log's -shm index
        return conn
    except sqlite3.Error as exc:
        conn.close()
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code not in _NO_ROOM_FOR_INDEX:
            raise
    return _in_memory_copy(path, wal)


def _in_memory_copy(path: Path, wal: Path) -> sqlite3.Connection:
    image = bytes(committed_image(path.read_bytes(), wal.read_bytes()))
    if not hasattr(sqlite3.Connection, "deserialize"):  # Python 3.10
        return _unlinked_copy(image)
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.deserialize(image)
    conn.execute("PRAGMA query_only=1")
    return conn


def _unlinked_copy(image: bytes) -> sqlite3.Connection:
    """The image in a file of the system's temp folder (not the full or read-only one), opened read-only, then
    unlinked: the connection keeps reading the open file, and nothing is left behind. For Python 3.10, which has
    no `deserialize`."""
    with tempfile.NamedTemporaryFile(prefix="mintprep-ledger-", suffix=".db", delete=False) as copy:
        copy.write(image)
    try:
        conn = sqlite3.connect(f"{Path(copy.name).as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the file opened before its name goes
        return conn
    finally:
        os.unlink(copy.name)


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
