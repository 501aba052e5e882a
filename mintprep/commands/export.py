"""`mintprep export COLLECTION.yaml -o DIR`: the collection as a HashLips-style folder, for tools that take one.

`images/<id>.png` and `json/<id>.json` (or `json/<id>` for contracts whose tokenURI has no extension, ERC721A's
default), plus `json/_metadata.json`, the array HashLips' engine writes. Each document is the one the current
metadata root publishes, byte for byte (its `image` is the pinned `ipfs://` CID, so it needs no rewriting); each
image is the pinned PNG, read from the local object store or else from verified blocks (a hidden drop's, before
the reveal, from the local store that holds them). The folder is built beside DIR and renamed into place: an
interrupted export leaves nothing half-written. It is the current state: after `audit --repair`, the repaired
pieces. Tokens whose image fails today's guards are exported as published and named in the report (`broken`),
the minted ones among them apart (`broken_minted`, as the last `run` read the chain): repair keeps those as sold.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from mintprep.base import ObjectCorrupt, UserError, DISK_FULL_ERRNOS, DiskFull
from mintprep.collection import Collection, token_file_name
from mintprep.ipfs import Unreadable, list_directory, read_file
from mintprep.stages import publication_backend
from mintprep.state import Workspace

Names = Literal["json", "extensionless"]
NAMERS = {"json": token_file_name, "extensionless": str}


@dataclass(frozen=True)
class ExportReport:
    out: str
    names: Names
    tokens: list[int]
    metadata_root: str
    files: int
    broken: list[int]  # exported tokens whose image fails today's pixel guards (audit --repair replaces them)
    broken_minted: list[int]  # those of `broken` minted when `run` last read the chain: repair keeps them as sold

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def export_collection(col: Collection, out: Path, *, names: Names = "json") -> ExportReport:
    """Write the current manifest's tokens to `out` (which must not exist or be empty); UserError otherwise."""
    if names not in NAMERS:
        raise UserError(f"--names: json or extensionless, got {names!r}")
    out = out.expanduser().absolute()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"{out}: exists and is not an empty folder; export writes a new one", path=str(out))
    with Workspace.open(col, readonly=True) as ws:
        record = ws.ledger.current_manifest()
        if record is None:
            raise UserError(f"{col.path}: nothing pinned yet; run `mintprep run` or `mintprep import` first")
        fetch = publication_backend(ws).fetch_block
        lines = []
        with _staged_folder(out) as staging:
            for folder in ("images", "json"):
                (staging / folder).mkdir()
            try:  # each file written as it is read: holding them all held every image of the collection at once
                published = list_directory(record.metadata_root, fetch)
                for token in record.manifest.tokens:
                    document = read_file(published[record.manifest.file_name(token.token_id)], fetch)
                    _write(staging, f"images/{token.token_id}.png", _image(ws, token.png_sha256, token.image_cid))
                    _write(staging, f"json/{NAMERS[names](token.token_id)}", document)
                    lines.append(_metadata_line(document))
            except (Unreadable, KeyError) as exc:
                raise UserError(f"ipfs://{record.metadata_root}/ cannot be read whole from the collection's store "
                                f"({exc}); run `mintprep audit --repair` first") from None
            _write(staging, "json/_metadata.json", _metadata_array(lines))
        broken = failing_today(ws, {t.token_id: t.png_sha256 for t in record.manifest.tokens})
        seen = ws.ledger.minted_seen()
    return ExportReport(str(out), names, [t.token_id for t in record.manifest.tokens], record.metadata_root,
                        2 * len(record.manifest.tokens) + 1, broken, sorted(set(broken) & set(seen[0] if seen else ())))


def failing_today(ws: Workspace, images: dict[int, str]) -> list[int]:
    """Tokens whose image (token id -> PNG sha256) fails today's pixel guards: the ledger's verdicts, and the
    images never judged under today's thresholds judged now (read-only: nothing recorded). The pixel code (numpy,
    PIL: a tenth of a 2,000-piece export) is loaded only when an image needs judging."""
    from mintprep.stages import settings_key

    passed = ws.ledger.verdict_oks(set(images.values()), settings_key(ws.col))
    if unjudged := set(images.values()) - passed.keys():
        from mintprep.stages import stored_verdicts

        judged = stored_verdicts(ws.col, ws.ledger, unjudged, record=False, details=False)
        passed.update((sha, verdict.ok) for sha, verdict in judged.items())
    return sorted(token_id for token_id, sha in images.items() if not passed[sha])


def _image(ws: Workspace, png_sha256: str, image_cid: str) -> bytes:
    """The pinned PNG from the object store, which reads a lost or garbled copy back from its pinned blocks (each
    checked against its CID, the file against `png_sha256`: mintprep.state.pinned_copies); Unreadable when no copy
    reads whole."""
    try:
        return ws.ledger.objects.get(png_sha256)
    except ObjectCorrupt as exc:  # ObjectMissing too
        raise Unreadable(f"image {image_cid}: {exc}") from None


@contextmanager
def _staged_folder(out: Path) -> Iterator[Path]:
    """A new folder beside `out`, renamed into place when the block ends, removed if it raises: an interrupted
    export leaves nothing half-written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        yield staging
        if out.exists():
            out.rmdir()  # empty, checked above
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _metadata_line(document: bytes) -> str:
    """A document as its line of HashLips' `_metadata.json`, made as the document is read: the parsed documents of a
    whole collection, held to the end, had the garbage collector walk them again and again (16 of the 22 ms that
    parsing 1,000 took). One line each, not indented as HashLips' engine indents them: Python's indenting JSON
    encoder runs in Python, not C (half a second of a 10,000-token export)."""
    return json.dumps(json.loads(document), ensure_ascii=False)


def _metadata_array(lines: list[str]) -> bytes:
    """HashLips' `_metadata.json`: the array of every document, one to a line."""
    return ("[\n" + ",\n".join(lines) + "\n]\n").encode()


def _write(folder: Path, name: str, data: bytes) -> None:
    """A new file in the staging folder (os.open, O_EXCL: 20,001 files through pathlib's and io's layers cost as much
    as creating them)."""
    path = os.path.join(folder, name)
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
        finally:
            os.close(handle)
    except OSError as exc:  # a write's ENOSPC names no file: named here, with what it needed
        if exc.errno in DISK_FULL_ERRNOS:
            raise DiskFull(Path(path), len(data)) from None
        raise
