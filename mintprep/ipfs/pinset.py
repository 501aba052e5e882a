"""The local store's pin set: `ipfs/pins.db`, a SQLite table (cid → name) in WAL mode.

Pinning a batch is one transaction (one sync however many pins it holds) and pinning stays O(1) in the size of
the collection; the one-file-per-pin layout it replaces (`pins/<cid>`) cost three syncs per pin. A store that
still has that folder is migrated by the first writer: the rows are committed, then the files removed (a kill
in between only repeats the migration). Readers open the file read-only and create nothing, and until a writer
has migrated a store they read the old folder too.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mintprep.base import UserError, open_reader, open_writer, transaction, sqlite_disk_full


class PinSet:
    def __init__(self, root: Path) -> None:
        self.path = root / "pins.db"
        self.legacy_dir = root / "pins"

    def read(self) -> dict[str, str]:
        """cid → name of every pin."""
        pins = self._legacy()
        with self._reader() as conn:
            if conn is not None:
                pins.update(conn.execute("SELECT cid, name FROM pins").fetchall())
        return pins

    def has(self, cid: str) -> bool:
        with self._reader() as conn:
            if conn is not None and conn.execute("SELECT 1 FROM pins WHERE cid=?", (cid,)).fetchone():
                return True
        return (self.legacy_dir / cid).is_file()

    def add(self, pins: Iterable[tuple[str, str]]) -> None:
        """Pin every (cid, name) in one transaction."""
        with self._writer() as conn, transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO pins VALUES (?, ?)", list(pins))

    def remove(self, cid: str) -> bool:
        with self._writer() as conn, transaction(conn):
            return conn.execute("DELETE FROM pins WHERE cid=?", (cid,)).rowcount > 0

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection | None]:
        """A read-only connection, or None where there is no pin set yet (no file, or a file whose first writer
        was killed before it made the table)."""
        if not self.path.exists():
            yield None
            return
        with self._connection(open_reader) as conn:
            made = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pins'").fetchone()
            yield conn if made else None

    @contextmanager
    def _writer(self) -> Iterator[sqlite3.Connection]:
        with self._connection(open_writer) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS pins (cid TEXT PRIMARY KEY, name TEXT NOT NULL)")
            self._migrate(conn)
            yield conn

    @contextmanager
    def _connection(self, opener: Callable[[Path], sqlite3.Connection]) -> Iterator[sqlite3.Connection]:
        try:
            conn = opener(self.path)
            try:
                yield conn
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            full = sqlite_disk_full(self.path, exc)
            if full is not None:
                raise full from None
            raise UserError(f"{self.path}: not a readable pin set ({exc}); move it aside and pin again",
                            path=str(self.path)) from None

    def _migrate(self, conn: sqlite3.Connection) -> None:
        legacy = self._legacy()
        if legacy:
            with transaction(conn):
                conn.executemany("INSERT OR IGNORE INTO pins VALUES (?, ?)", legacy.items())
        shutil.rmtree(self.legacy_dir, ignore_errors=True)

    def _legacy(self) -> dict[str, str]:
        if not self.legacy_dir.is_dir():
            return {}
        pins = {}
        for path in self.legacy_dir.iterdir():
            if path.name.startswith("."):
                continue  # a temp file of an interrupted pin
            try:
                pins[path.name] = json.loads(path.read_text())["name"]
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
                raise UserError(f"{path} is not valid JSON ({exc}); delete it and pin {path.name} again") from None
        return pins
