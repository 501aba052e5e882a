"""The ledger: `.mintprep/state.db` (SQLite, WAL) beside the collection file.

Rows are written only after the objects they name exist (objects are fsynced first), and each
stage result is one transaction, so a crash at any point leaves a ledger the same command
converges from. One writer at a time: an flock on `.mintprep/lock` that a second `run` reports.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple

from mintprep.base import (DISK_FULL_ERRNOS, DiskFull, LedgerBusy, MintprepError, StateDir, UserError, open_reader,
                           open_writer, scrub, sqlite_disk_full)
from mintprep.state.objects import ObjectStore
from mintprep.state.pinned_copies import PinnedCopies
from mintprep.state.verdict_cache import VerdictCache, VerdictRow, select_rows, verdict_values

if TYPE_CHECKING:  # read when a manifest is: `status` opens the ledger without the collection's models
    from mintprep.collection import Manifest

SCHEMA_VERSION = 1
# SQLite result codes (https://www.sqlite.org/rescode.html): only these say the file itself is not a ledger;
# a full disk, a lock, an I/O error or a missing -shm leave a healthy ledger that must not be called corrupt.
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_DAMAGED = frozenset({_SQLITE_CORRUPT, _SQLITE_NOTADB})


def _sqlite_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None  # extended codes carry the primary in the low byte


def ledger_unavailable(db: Path, exc: sqlite3.Error) -> MintprepError:
    """The error for a healthy ledger SQLite cannot use now: DiskFull, or a plain error that says it is not damaged."""
    full = sqlite_disk_full(db, exc)
    if full is not None:
        return full
    return MintprepError(f"{db}: the ledger cannot be used right now ({exc}); it is not damaged: check free space, "
                         "permissions and other mintprep processes, then run the command again", path=str(db))


IMPORTED_TX = "imported"  # the tx_hash of a deployment row adopted by `mintprep import`, not sent by mintprep
IMPORTED_KEY = "imported:"  # request-key prefix of a piece taken as published by `mintprep import`
MINTED_SEEN = "minted_seen"  # meta key: the minted token ids the last `run` read from the chain, and when
PUBLISHED_KEPT = "published_tokens_kept"  # meta key: the published_tokens table holds every manifest's ids

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- generate stage, keyed by the request key (hash of everything that determines the pixels)
CREATE TABLE IF NOT EXISTS generations (
    request_key TEXT PRIMARY KEY, token_id INTEGER NOT NULL, png_sha256 TEXT,
    accepted_attempt INTEGER, metrics TEXT NOT NULL, provenance TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
    request_key TEXT NOT NULL, token_id INTEGER NOT NULL, attempt INTEGER NOT NULL, seed INTEGER NOT NULL,
    precision TEXT NOT NULL, guard TEXT, step INTEGER, reason TEXT, metrics TEXT NOT NULL,
    accepted INTEGER NOT NULL, PRIMARY KEY (request_key, attempt));
-- validate stage, keyed by (image, guard settings)
CREATE TABLE IF NOT EXISTS verdicts (
    png_sha256 TEXT NOT NULL, settings_key TEXT NOT NULL, ok INTEGER NOT NULL, reasons TEXT NOT NULL,
    metrics TEXT NOT NULL, PRIMARY KEY (png_sha256, settings_key));
-- pin stage: content (sha256 of bytes) + IPFS profile + backend -> CID, verified before the row exists
CREATE TABLE IF NOT EXISTS pins (
    cid TEXT NOT NULL, backend TEXT NOT NULL, content_sha256 TEXT NOT NULL, profile TEXT NOT NULL,
    kind TEXT NOT NULL, name TEXT NOT NULL, remote_id TEXT, pinned_at REAL NOT NULL, unpinned_at REAL,
    PRIMARY KEY (cid, backend));
CREATE INDEX IF NOT EXISTS pins_by_content ON pins (content_sha256, profile, backend);
-- the current state of each token: which generation, image and metadata it points at
CREATE TABLE IF NOT EXISTS pieces (
    token_id INTEGER PRIMARY KEY, request_key TEXT NOT NULL, png_sha256 TEXT, image_cid TEXT,
    metadata_cid TEXT, status TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS manifests (
    id INTEGER PRIMARY KEY AUTOINCREMENT, metadata_root TEXT NOT NULL, manifest_cid TEXT NOT NULL,
    manifest_sha256 TEXT NOT NULL, provenance_hash TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS deployments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, network TEXT NOT NULL, chain_id INTEGER NOT NULL,
    address TEXT NOT NULL, tx_hash TEXT NOT NULL, deployer TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chain_txs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, chain_id INTEGER NOT NULL, address TEXT NOT NULL,
    tx_hash TEXT NOT NULL, detail TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS publishes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL, location TEXT NOT NULL, site_cid TEXT,
    metadata_root TEXT NOT NULL, contract TEXT, created REAL NOT NULL);
-- repair moves a token past attempts that produced a broken image: later runs start there
CREATE TABLE IF NOT EXISTS attempt_offsets (
    token_id INTEGER PRIMARY KEY, first_attempt INTEGER NOT NULL, reason TEXT NOT NULL, updated REAL NOT NULL);
-- tokens adopted by `mintprep import`: where from, and the traits their published metadata carries
CREATE TABLE IF NOT EXISTS imports (
    token_id INTEGER PRIMARY KEY, source TEXT NOT NULL, traits TEXT NOT NULL, created REAL NOT NULL);
-- every token id any manifest ever listed, kept as manifests are recorded (audit and the manifest stage ask)
CREATE TABLE IF NOT EXISTS published_tokens (token_id INTEGER PRIMARY KEY);
-- multi-step operations (repair) resume from here
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, plan TEXT NOT NULL, step INTEGER NOT NULL,
    created REAL NOT NULL, finished REAL);
"""


@dataclass(frozen=True)
class GenerationRow:
    request_key: str
    token_id: int
    png_sha256: str | None
    accepted_attempt: int | None
    metrics: dict[str, Any]
    provenance: dict[str, Any]


@dataclass(frozen=True)
class AttemptRow:
    attempt: int
    seed: int
    precision: str
    guard: str | None
    step: int | None
    reason: str | None
    metrics: dict[str, Any]
    accepted: bool


@dataclass(frozen=True)
class PinRow:
    """A pin, verified on its backend, as the ledger records it."""

    cid: str
    backend: str
    content_sha256: str
    profile: str
    kind: str
    name: str
    remote_id: str | None


@dataclass(frozen=True)
class PieceRecord:
    token_id: int
    request_key: str
    png_sha256: str | None
    image_cid: str | None
    metadata_cid: str | None
    status: str  # generated | rejected | pinned


@dataclass(frozen=True)
class ManifestRecord:
    metadata_root: str
    manifest_cid: str
    manifest_sha256: str
    provenance_hash: str
    manifest: Manifest


def _minted_seen(value: str | None) -> tuple[list[int], float] | None:
    seen = json.loads(value) if value is not None else None
    return (seen["token_ids"], seen["at"]) if seen else None


class StatusRead(NamedTuple):
    """Everything `status` reads of the ledger (Ledger.status_read)."""
    pieces: dict[int, PieceRecord]
    verdicts: dict[int, bool | None]  # token id -> its image's verdict under the settings (None: not judged)
    manifest: ManifestNames | None  # the newest manifest's names, without reading the manifest
    published: str | None  # latest_publish's location
    minted_seen: tuple[list[int], float] | None
    tx_kinds: frozenset[str]  # the kinds of chain transactions recorded
    imported: dict[int, list[tuple[str, str]]]  # as imported_traits


class ManifestNames(NamedTuple):
    metadata_root: str
    manifest_cid: str
    provenance_hash: str


@dataclass(frozen=True)
class Deployment:
    network: str
    chain_id: int
    address: str
    tx_hash: str
    deployer: str


@dataclass(frozen=True)
class JournalEntry:
    id: int
    kind: str
    plan: dict[str, Any]
    step: int


@dataclass(frozen=True)
class PublishRecord:
    target: str
    location: str
    site_cid: str | None
    metadata_root: str
    contract: str | None


class Ledger:
    def __init__(self, state_dir: Path, conn: sqlite3.Connection, lock_fd: int | None):
        self.state_dir = state_dir
        self.pinned_copies = PinnedCopies(self._pinned_as, StateDir(state_dir).ipfs)
        # Only the writer (it holds the lock) puts a copy back: `audit` reports the store as it found it.
        self.objects = ObjectStore(StateDir(state_dir).objects, copies=self.pinned_copies, heal=lock_fd is not None)
        self._conn = conn
        self._lock_fd = lock_fd
        self._kept: dict[str, dict[str, VerdictRow]] = {}  # settings key -> sha256 -> verdict the cache did not take
        self.verdict_cache = VerdictCache(state_dir)
        self.verdicts_not_kept: str | None = None  # why the verdict cache took none of keep_verdicts' rows, if so

    # -- opening ----------------------------------------------------------------------------------
    @classmethod
    def open(cls, state_dir: Path, *, readonly: bool = False) -> "Ledger":
        db = StateDir(Path(state_dir)).ledger
        try:
            return cls._open_readonly(Path(state_dir)) if readonly else cls._open_writer(Path(state_dir))
        except sqlite3.DatabaseError as exc:
            if _sqlite_code(exc) in _DAMAGED:
                raise UserError(f"{db}: not a readable mintprep ledger ({exc}); restore it from a backup, or move it "
                                "aside to start a new ledger", path=str(db)) from None
            raise ledger_unavailable(db, exc) from None
        except OSError as exc:
            if exc.errno in DISK_FULL_ERRNOS:
                raise DiskFull(exc.filename or db, None) from None
            raise

    @classmethod
    def _open_readonly(cls, state_dir: Path) -> "Ledger":
        db = StateDir(state_dir).ledger
        if not db.exists():
            raise UserError(f"{state_dir}: no ledger yet; run `mintprep run` first")
        # Read-only, creating nothing (mintprep.base.sqlite): a read-only folder (a backup, a mount) can be read.
        conn = open_reader(db)
        ledger = cls(state_dir, conn, None)
        ledger._check_version()
        return ledger

    @classmethod
    def _open_writer(cls, state_dir: Path) -> "Ledger":
        state_dir.mkdir(parents=True, exist_ok=True)
        lock_fd = _take_writer_lock(StateDir(state_dir).writer_lock)
        conn = open_writer(StateDir(state_dir).ledger)
        ledger = cls(state_dir, conn, lock_fd)
        with ledger.transaction():
            for statement in _statements(SCHEMA):
                conn.execute(statement)
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        ledger._check_version()
        if not ledger._published_tokens_kept():  # a ledger from before the table: filled once from its manifests
            with ledger.transaction() as db:
                db.executemany("INSERT OR IGNORE INTO published_tokens VALUES (?)",
                               [(t,) for t in ledger._ids_in_manifests()])
                db.execute(f"INSERT OR REPLACE INTO meta VALUES ('{PUBLISHED_KEPT}', '1')")
        return ledger

    def _check_version(self) -> None:
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None or int(row[0]) != SCHEMA_VERSION:
            found = row[0] if row else "none"
            raise UserError(
                f"{StateDir(self.state_dir).ledger}: ledger schema version {found}, this mintprep reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self._conn.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write; a full disk is DiskFull and the ledger keeps its last committed state."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if _sqlite_code(exc) in _DAMAGED:
                raise
            raise ledger_unavailable(StateDir(self.state_dir).ledger, exc) from None

    def _one(self, sql: str, *args: Any) -> tuple | None:
        return self._conn.execute(sql, args).fetchone()

    # -- generate ---------------------------------------------------------------------------------
    def generation(self, request_key: str) -> GenerationRow | None:
        row = self._one("SELECT * FROM generations WHERE request_key=?", request_key)
        if row is None:
            return None
        return GenerationRow(row[0], row[1], row[2], row[3], json.loads(row[4]), json.loads(row[5]))

    def record_generation(self, generation: GenerationRow, attempts: list[AttemptRow]) -> None:
        """One transaction: the generation and all its attempts. The PNG must already be in `objects`."""
        if generation.png_sha256 and not self.objects.has(generation.png_sha256):
            raise RuntimeError(f"refusing to record generation: object {generation.png_sha256} is not stored")
        with self.transaction() as db:
            db.execute("DELETE FROM attempts WHERE request_key=?", (generation.request_key,))
            db.executemany(
                "INSERT INTO attempts VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(generation.request_key, generation.token_id, a.attempt, _signed64(a.seed), a.precision, a.guard, a.step,
                  a.reason, json.dumps(a.metrics, sort_keys=True), int(a.accepted)) for a in attempts],
            )
            db.execute(
                "INSERT OR REPLACE INTO generations VALUES (?,?,?,?,?,?,?)",
                (generation.request_key, generation.token_id, generation.png_sha256, generation.accepted_attempt,
                 json.dumps(generation.metrics, sort_keys=True), json.dumps(generation.provenance, sort_keys=True),
                 time.time()),
            )

    def attempts(self, request_key: str) -> list[AttemptRow]:
        rows = self._conn.execute(
            "SELECT attempt, seed, precision, guard, step, reason, metrics, accepted FROM attempts "
            "WHERE request_key=? ORDER BY attempt", (request_key,)).fetchall()
        return [AttemptRow(r[0], r[1] % 2**64, r[2], r[3], r[4], r[5], json.loads(r[6]), bool(r[7])) for r in rows]

    # -- validate ---------------------------------------------------------------------------------
    def verdict(self, png_sha256: str, settings_key: str) -> tuple[bool, list[str], dict[str, Any]] | None:
        return self.verdicts([png_sha256], settings_key).get(png_sha256)

    def verdicts(self, shas: Iterable[str], settings_key: str) -> dict[str, tuple[bool, list[str], dict[str, Any]]]:
        """`verdict` of many images, a few hundred per query (a query per image was a tenth of an audit)."""
        rows = self._verdict_rows("png_sha256, ok, reasons, metrics", shas, settings_key)
        found = {row[0]: (bool(row[1]), json.loads(row[2]), json.loads(row[3])) for row in rows}
        return {**found, **{v.png_sha256: (v.ok, v.reasons, v.metrics) for v in self._kept_of(shas, settings_key)}}

    def judged(self, settings_key: str) -> frozenset[str]:
        """The images (png sha256) the ledger holds a verdict for under `settings_key`."""
        return frozenset(row[0] for row in self._conn.execute(
            "SELECT png_sha256 FROM verdicts WHERE settings_key = ?", (settings_key,)))

    def verdict_hashes(self, shas: Iterable[str], settings_key: str) -> dict[str, tuple[bool, list[str], dict[str, Any]]]:
        """`verdicts` with only the facts the near-duplicate check reads (guard, phash, tiles), picked out by SQLite:
        parsing each verdict's whole metrics in Python was most of an audit's duplicate check."""
        rows = self._verdict_rows("png_sha256, ok, reasons, json_extract(metrics, '$.guard'), "
                                  "json_extract(metrics, '$.phash'), json_extract(metrics, '$.tiles')", shas, settings_key)
        found = {row[0]: (bool(row[1]), json.loads(row[2]), {"guard": row[3], "phash": row[4], "tiles": row[5]})
                 for row in rows}
        return {**found, **{v.png_sha256: (v.ok, v.reasons, {k: v.metrics[k] for k in ("guard", "phash", "tiles")})
                            for v in self._kept_of(shas, settings_key)}}

    def verdict_oks(self, shas: Iterable[str], settings_key: str) -> dict[str, bool]:
        """Whether each image's verdict under `settings_key` passed, for the images that have one: `verdicts` with
        nothing parsed (reading each verdict's facts was most of an export's look at the guards)."""
        found = {row[0]: bool(row[1]) for row in self._verdict_rows("png_sha256, ok", shas, settings_key)}
        return {**found, **{v.png_sha256: v.ok for v in self._kept_of(shas, settings_key)}}

    def record_minted_seen(self, token_ids: Iterable[int]) -> None:
        """The minted tokens `run` read from the chain, with when: `status` (which reads no chain) shows them."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                       (MINTED_SEEN, json.dumps({"token_ids": sorted(token_ids), "at": time.time()})))

    def minted_seen(self) -> tuple[list[int], float] | None:
        """(minted token ids, when) as the last `run` read them from the chain; None when no run read them."""
        row = self._one("SELECT value FROM meta WHERE key = ?", MINTED_SEEN)
        return _minted_seen(row[0] if row else None)

    def status_read(self, settings_key: str) -> StatusRead:
        """What `status` reads, in one query: a first row of the collection's facts, then a row per piece with its
        verdict under `settings_key`."""
        rows = self._conn.execute(
            "SELECT 0 AS part, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            "(SELECT json_array(metadata_root, manifest_cid, provenance_hash) FROM manifests ORDER BY id DESC LIMIT 1), "
            "(SELECT location FROM publishes ORDER BY id DESC LIMIT 1), (SELECT value FROM meta WHERE key = ?), "
            "(SELECT json_group_array(DISTINCT kind) FROM chain_txs), "
            "(SELECT json_group_array(json_array(token_id, json(traits))) FROM imports) "
            "UNION ALL SELECT 1, p.token_id, p.request_key, p.png_sha256, p.image_cid, p.metadata_cid, p.status, v.ok, "
            "NULL, NULL, NULL, NULL, NULL FROM pieces p LEFT JOIN verdicts v ON v.png_sha256 = p.png_sha256 "
            "AND v.settings_key = ? ORDER BY part, 2", (MINTED_SEEN, settings_key)).fetchall()
        manifest, published, minted, kinds, imported = rows[0][8:]
        pieces = {row[1]: PieceRecord(*row[1:7]) for row in rows[1:]}
        return StatusRead(pieces, {row[1]: None if row[7] is None else bool(row[7]) for row in rows[1:] if row[3]},
                          ManifestNames(*json.loads(manifest)) if manifest else None, published,
                          _minted_seen(minted), frozenset(json.loads(kinds)),
                          {token_id: [tuple(pair) for pair in traits] for token_id, traits in json.loads(imported)})

    def passed(self, shas: Iterable[str], settings_key: str) -> set[str]:
        """Those of `shas` that passed under `settings_key` with nothing to report (no property such as
        `posterized`): what an audit asks first, with nothing parsed."""
        shas = list(shas)
        rows = self._verdict_rows("png_sha256, ok, json_extract(metrics, '$.properties')", shas, settings_key)
        return ({row[0] for row in rows if row[1] and row[2] in (None, "[]")}
                | {v.png_sha256 for v in self._kept_of(shas, settings_key) if v.ok and not v.metrics["properties"]})

    def _verdict_rows(self, columns: str, shas: Iterable[str], settings_key: str) -> list[tuple]:
        """The ledger's rows, then the verdict cache's for the images the ledger has none of."""
        shas = sorted(set(shas) - self._kept.get(settings_key, {}).keys())
        rows = select_rows(self._conn, columns, shas, settings_key)
        missing = set(shas) - {row[0] for row in rows}
        return rows + self.verdict_cache.rows(columns, missing, settings_key) if missing else rows

    def _kept_of(self, shas: Iterable[str], settings_key: str) -> list[VerdictRow]:
        kept = self._kept.get(settings_key, {})
        return [kept[sha] for sha in set(shas) if sha in kept]

    def record_verdicts(self, verdicts: Iterable[VerdictRow]) -> None:
        """Many verdicts in one transaction (one commit, so one sync, for a whole collection)."""
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?,?)", verdict_values(verdicts))

    def keep_verdicts(self, verdicts: list[VerdictRow]) -> str | None:
        """Verdicts judged by a command that may not write the ledger (opened read-only), written to the verdict
        cache for this command and the next: None when kept there, else why not (then held in memory instead, for
        the rest of this command)."""
        reason = self.verdict_cache.keep(verdicts)
        if reason is not None:
            self.verdicts_not_kept = reason
            for v in verdicts:
                self._kept.setdefault(v.settings_key, {})[v.png_sha256] = v
        return reason

    # -- pin --------------------------------------------------------------------------------------
    def pinned_cid(self, content_sha256: str, profile: str, backend: str) -> str | None:
        row = self._one("SELECT cid FROM pins WHERE content_sha256=? AND profile=? AND backend=? "
                        "AND unpinned_at IS NULL", content_sha256, profile, backend)
        return row[0] if row else None

    def _pinned_as(self, content_sha256: str) -> list[str]:
        """Every CID these bytes were pinned as (unpinned since or not: the blocks may still be kept), a manifest's
        too, newest first."""
        return [row[0] for row in self._conn.execute(
            "SELECT cid FROM (SELECT cid, pinned_at AS at FROM pins WHERE content_sha256 = ?1 "
            "UNION SELECT manifest_cid, created FROM manifests WHERE manifest_sha256 = ?1) "
            "GROUP BY cid ORDER BY max(at) DESC",
            (content_sha256,))]

    def record_pin(self, *, cid: str, backend: str, content_sha256: str, profile: str, kind: str, name: str,
                   remote_id: str | None) -> None:
        """Only called after the backend's copy was verified block by block."""
        self.record_pins([PinRow(cid, backend, content_sha256, profile, kind, name, remote_id)])

    def record_pins(self, pins: Iterable[PinRow]) -> None:
        """Many verified pins in one transaction: a batch that a kill interrupts is recorded whole or not at all."""
        now = time.time()
        rows = [(p.cid, p.backend, p.content_sha256, p.profile, p.kind, p.name, p.remote_id, now) for p in pins]
        if rows:
            with self.transaction() as db:
                db.executemany("INSERT OR REPLACE INTO pins VALUES (?,?,?,?,?,?,?,?,NULL)", rows)

    def record_unpin(self, cid: str, backend: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE pins SET unpinned_at=? WHERE cid=? AND backend=?", (time.time(), cid, backend))

    def active_pins(self, kind: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT cid, backend, content_sha256, profile, kind, name, remote_id FROM pins WHERE unpinned_at IS NULL"
        rows = self._conn.execute(sql + (" AND kind=?" if kind else ""), (kind,) if kind else ()).fetchall()
        keys = ("cid", "backend", "content_sha256", "profile", "kind", "name", "remote_id")
        return [dict(zip(keys, row)) for row in rows]

    # -- pieces -----------------------------------------------------------------------------------
    def set_pieces(self, pieces: list[PieceRecord]) -> None:
        now = time.time()
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO pieces VALUES (?,?,?,?,?,?,?)",
                           [(p.token_id, p.request_key, p.png_sha256, p.image_cid, p.metadata_cid, p.status, now)
                            for p in pieces])

    def drop_pieces_after(self, last_token_id: int) -> None:
        """Forget tokens a shrunk collection no longer has (their pins stay recorded in `pins`)."""
        with self.transaction() as db:
            db.execute("DELETE FROM pieces WHERE token_id > ?", (last_token_id,))

    def pieces(self) -> dict[int, PieceRecord]:
        rows = self._conn.execute("SELECT token_id, request_key, png_sha256, image_cid, metadata_cid, status "
                                  "FROM pieces ORDER BY token_id").fetchall()
        return {row[0]: PieceRecord(*row) for row in rows}

    def first_attempts(self) -> dict[int, int]:
        return dict(self._conn.execute("SELECT token_id, first_attempt FROM attempt_offsets").fetchall())

    def set_first_attempt(self, token_id: int, first_attempt: int, reason: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO attempt_offsets VALUES (?,?,?,?)",
                       (token_id, first_attempt, reason, time.time()))

    # -- manifest ---------------------------------------------------------------------------------
    def record_manifest(self, *, metadata_root: str, manifest_cid: str, manifest_sha256: str,
                        provenance_hash: str) -> None:
        if not self.objects.has(manifest_sha256):
            raise RuntimeError(f"refusing to record manifest: object {manifest_sha256} is not stored")
        latest = self.current_manifest()
        if latest and (latest.manifest_cid, latest.metadata_root) == (manifest_cid, metadata_root):
            return
        tokens = json.loads(self.objects.get(manifest_sha256)).get("tokens", [])
        with self.transaction() as db:
            db.execute("INSERT INTO manifests (metadata_root, manifest_cid, manifest_sha256, provenance_hash, created) "
                       "VALUES (?,?,?,?,?)", (metadata_root, manifest_cid, manifest_sha256, provenance_hash, time.time()))
            db.executemany("INSERT OR IGNORE INTO published_tokens VALUES (?)", [(t["token_id"],) for t in tokens])

    def published_token_ids(self) -> set[int]:
        """Every token id any recorded manifest listed (kept as they are recorded, not read from each manifest)."""
        if not self._published_tokens_kept():  # a read-only look at a ledger no writer has opened since
            return self._ids_in_manifests()
        return {row[0] for row in self._conn.execute("SELECT token_id FROM published_tokens")}

    def _published_tokens_kept(self) -> bool:
        try:
            return self._one(f"SELECT 1 FROM meta WHERE key='{PUBLISHED_KEPT}'") is not None
        except sqlite3.OperationalError:
            return False

    def _ids_in_manifests(self) -> set[int]:
        return {token.token_id for record in self.manifests() for token in record.manifest.tokens}

    def current_manifest(self) -> ManifestRecord | None:
        return next(self.manifests(), None)

    def manifests(self) -> Iterator[ManifestRecord]:
        """Every manifest ever recorded, newest first (read lazily: callers usually stop at the first)."""
        rows = self._conn.execute("SELECT metadata_root, manifest_cid, manifest_sha256, provenance_hash FROM manifests "
                                  "ORDER BY id DESC").fetchall()
        from mintprep.collection import Manifest

        for row in rows:
            yield ManifestRecord(row[0], row[1], row[2], row[3], Manifest.from_json(json.loads(self.objects.get(row[2]))))

    def metadata_roots(self) -> list[str]:
        return [row[0] for row in self._conn.execute("SELECT DISTINCT metadata_root FROM manifests").fetchall()]

    # -- imports ----------------------------------------------------------------------------------
    def record_imports(self, source: str, traits: dict[int, list[tuple[str, str]]]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO imports VALUES (?,?,?,?)",
                           [(t, source, json.dumps(v), time.time()) for t, v in traits.items()])

    def import_sources(self) -> set[str]:
        return {row[0] for row in self._conn.execute("SELECT DISTINCT source FROM imports").fetchall()}

    def imported_traits(self) -> dict[int, list[tuple[str, str]]]:
        rows = self._conn.execute("SELECT token_id, traits FROM imports").fetchall()
        return {row[0]: [tuple(pair) for pair in json.loads(row[1])] for row in rows}

    # -- chain and publishing ---------------------------------------------------------------------
    def record_deployment(self, network: str, chain_id: int, address: str, tx_hash: str, deployer: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO deployments (network, chain_id, address, tx_hash, deployer, created) "
                       "VALUES (?,?,?,?,?,?)", (network, chain_id, address, tx_hash, deployer, time.time()))

    def latest_deployment(self, chain_id: int) -> Deployment | None:
        row = self._one("SELECT network, chain_id, address, tx_hash, deployer FROM deployments WHERE chain_id=? "
                        "ORDER BY id DESC LIMIT 1", chain_id)
        return Deployment(*row) if row else None

    def record_chain_tx(self, kind: str, chain_id: int, address: str, tx_hash: str, detail: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO chain_txs (kind, chain_id, address, tx_hash, detail, created) VALUES (?,?,?,?,?,?)",
                       (kind, chain_id, address, tx_hash, scrub(json.dumps(detail, sort_keys=True)), time.time()))

    def latest_chain_tx(self, kind: str, chain_id: int) -> dict[str, Any] | None:
        row = self._one("SELECT address, tx_hash, detail FROM chain_txs WHERE kind=? AND chain_id=? "
                        "ORDER BY id DESC LIMIT 1", kind, chain_id)
        return {"address": row[0], "tx_hash": row[1], **json.loads(row[2])} if row else None

    def chain_txs(self, kind: str) -> list[dict[str, Any]]:
        rows = self._conn.execute("SELECT address, tx_hash, detail FROM chain_txs WHERE kind=? ORDER BY id",
                                  (kind,)).fetchall()
        return [{"address": r[0], "tx_hash": r[1], **json.loads(r[2])} for r in rows]

    def has_own_deployment(self) -> bool:
        """Whether mintprep deployed a contract for this collection (an imported one is not its own)."""
        return self._one("SELECT 1 FROM deployments WHERE tx_hash != ? LIMIT 1", IMPORTED_TX) is not None

    def record_publish(self, target: str, location: str, site_cid: str | None, metadata_root: str,
                       contract: str | None) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO publishes (target, location, site_cid, metadata_root, contract, created) "
                       "VALUES (?,?,?,?,?,?)", (target, scrub(location), site_cid, metadata_root, contract, time.time()))

    def latest_publish(self) -> PublishRecord | None:
        row = self._one("SELECT target, location, site_cid, metadata_root, contract FROM publishes "
                        "ORDER BY id DESC LIMIT 1")
        return PublishRecord(*row) if row else None

    # -- journal (multi-step operations that must survive a kill) ----------------------------------
    def open_journal(self, kind: str) -> JournalEntry | None:
        """The unfinished operation of this kind, if a previous process died in the middle of it."""
        row = self._one("SELECT id, kind, plan, step FROM journal WHERE kind=? AND finished IS NULL "
                        "ORDER BY id DESC LIMIT 1", kind)
        return JournalEntry(row[0], row[1], json.loads(row[2]), row[3]) if row else None

    def begin_journal(self, kind: str, plan: dict[str, Any]) -> JournalEntry:
        with self.transaction() as db:
            cursor = db.execute("INSERT INTO journal (kind, plan, step, created) VALUES (?,?,0,?)",
                                (kind, json.dumps(plan, sort_keys=True), time.time()))
        return JournalEntry(cursor.lastrowid, kind, plan, 0)

    def advance_journal(self, entry: JournalEntry, step: int, plan: dict[str, Any] | None = None) -> JournalEntry:
        """Record that every step before `step` is done (and the plan as it now stands)."""
        plan = entry.plan if plan is None else plan
        with self.transaction() as db:
            db.execute("UPDATE journal SET step=?, plan=? WHERE id=?", (step, json.dumps(plan, sort_keys=True), entry.id))
        return JournalEntry(entry.id, entry.kind, plan, step)

    def finish_journal(self, entry: JournalEntry, *, abandoned: str | None = None) -> None:
        """Close the entry; `abandoned` (the error that stopped it) keeps the plan for the next repair to read."""
        plan = dict(entry.plan, abandoned=abandoned) if abandoned else entry.plan
        with self.transaction() as db:
            db.execute("UPDATE journal SET finished=?, plan=? WHERE id=?",
                       (time.time(), json.dumps(plan, sort_keys=True), entry.id))

    def last_journal(self, kind: str) -> JournalEntry | None:
        row = self._one("SELECT id, kind, plan, step FROM journal WHERE kind=? ORDER BY id DESC LIMIT 1", kind)
        return JournalEntry(row[0], row[1], json.loads(row[2]), row[3]) if row else None


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT the surrounding transaction; run statements one by one instead.
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _take_writer_lock(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise LedgerBusy(
            f"{path.parent}: another mintprep process (pid {holder}) is writing this collection's ledger; "
            "wait for it to finish (or stop it) and run again"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def _signed64(seed: int) -> int:
    """A seed as SQLite's signed 64-bit INTEGER holds it: a creator's seed may use all 64 bits (torch takes any
    unsigned 64-bit seed); read back `% 2**64`. Derived seeds (63 bits) are stored as they are."""
    return seed - 2**64 if seed >= 2**63 else seed
