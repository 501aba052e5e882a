"""Verdicts a read-only command computed, kept beside the ledger for the commands after it.

`audit` and `review` open the ledger read-only (they run beside a `run`, on backups, on read-only mounts), so the
pixel-guard verdicts they compute cannot go into the ledger's `verdicts` table. They go here instead:
`.mintprep/verdicts-cache.db`, an SQLite file of the same rows (image sha256 + guard settings key -> verdict),
each batch written in one transaction (atomic: a reader sees all of it or none). A verdict is a pure function of
the bytes and the settings, so it may come from either place; the ledger's is read first. Where the folder is not
writable (a backup, a full disk) nothing is kept and the reason is returned for the command to say.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mintprep.base import open_reader, open_writer

FILE_NAME = "verdicts-cache.db"
SCHEMA = ("CREATE TABLE IF NOT EXISTS verdicts (png_sha256 TEXT NOT NULL, settings_key TEXT NOT NULL, "
          "ok INTEGER NOT NULL, reasons TEXT NOT NULL, metrics TEXT NOT NULL, PRIMARY KEY (png_sha256, settings_key))")
ROWS_PER_QUERY = 500


@dataclass(frozen=True)
class VerdictRow:
    png_sha256: str
    settings_key: str
    ok: bool
    reasons: list[str]
    metrics: dict[str, Any]  # the verdict's facts: guard, decided_by, properties, phash, tiles, pixels


def verdict_values(rows: Iterable[VerdictRow]) -> list[tuple]:
    """Rows as the `verdicts` table holds them (the ledger's and this cache's)."""
    return [(v.png_sha256, v.settings_key, int(v.ok), json.dumps(v.reasons), json.dumps(v.metrics, sort_keys=True))
            for v in rows]


def select_rows(conn: sqlite3.Connection, columns: str, shas: Iterable[str], settings_key: str) -> list[tuple]:
    """`columns` of the `verdicts` rows of `shas` under `settings_key`, a few hundred per query."""
    rows, wanted = [], sorted(set(shas))
    for start in range(0, len(wanted), ROWS_PER_QUERY):
        chunk = wanted[start:start + ROWS_PER_QUERY]
        rows += conn.execute(f"SELECT {columns} FROM verdicts WHERE settings_key=? AND png_sha256 IN "
                             f"({','.join('?' * len(chunk))})", (settings_key, *chunk)).fetchall()
    return rows


class VerdictCache:
    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / FILE_NAME

    def rows(self, columns: str, shas: Iterable[str], settings_key: str) -> list[tuple]:
        """As `select_rows`; none when there is no cache (or it cannot be read: it is only a cache)."""
        shas = list(shas)
        if not shas or not self.path.exists():
            return []
        try:
            conn = open_reader(self.path)
        except (sqlite3.Error, OSError):
            return []
        try:
            return select_rows(conn, columns, shas, settings_key)
        except sqlite3.Error:
            return []
        finally:
            conn.close()

    def keep(self, rows: list[VerdictRow]) -> str | None:
        """Write `rows` in one transaction; None when kept, else why not (a read-only folder, a full disk)."""
        if not rows:
            return None
        try:
            conn = open_writer(self.path)
        except (sqlite3.Error, OSError) as exc:
            return f"{self.path}: not written ({exc})"
        try:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(SCHEMA)
                conn.executemany("INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?,?)", verdict_values(rows))
                conn.execute("COMMIT")
            return None
        except (sqlite3.Error, OSError) as exc:
            return f"{self.path}: not written ({exc})"
        finally:
            conn.close()
