"""What a command kept of a collection file it validated, beside the ledger, trusted only while the file's path and
bytes and mintprep's code are those it was kept under.

`status` keeps what it takes from the validated file (`.mintprep/status-inputs.json`) and `run` what it found when
nothing was left to do (`.mintprep/run-stamp.json`), so that the next call on an unchanged file loads neither YAML
nor the collection's models. A file that is missing, damaged or not one this code wrote reads as nothing kept; a
folder nothing may write to keeps nothing (the command validates the file each time, as before).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from mintprep.base.durable_files import write_atomic
from mintprep.base.errors import DiskFull
from mintprep.base.hashing import content_key

MAX_KEPT_BYTES = 8 << 20  # larger than anything kept here: a bigger file is not one this code wrote


@functools.cache
def code_fingerprint() -> str:
    """mintprep's code as installed: every module's path, size and mtime (~2 ms for ~200 modules)."""
    root = Path(__file__).resolve().parents[1]
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                found.append((os.path.join(folder, name), stat.st_size, stat.st_mtime_ns))
    return content_key(sorted(found))


def read_kept(kept_file: Path, collection: Path) -> tuple[dict[str, Any], bytes] | None:
    """The payload kept in `kept_file` for the collection file at `collection` as it is now, under this code, and
    the file's bytes; None when there is none. The collection file is read only when it is as large as the one
    kept (a file of any size is never read whole here)."""
    try:
        if kept_file.stat().st_size > MAX_KEPT_BYTES:
            return None
        kept = json.loads(kept_file.read_bytes())
        if (kept["code"] != code_fingerprint() or kept["collection"] != str(collection.resolve())
                or not collection.is_file() or collection.stat().st_size != kept["source_bytes"]):
            return None
        source = collection.read_bytes()
        if hashlib.sha256(source).hexdigest() != kept["source_sha256"] or not isinstance(kept["payload"], dict):
            return None
        return kept["payload"], source
    except (OSError, ValueError, KeyError, TypeError):  # none kept, or not a file this code wrote
        return None


def keep(kept_file: Path, collection: Path, source: bytes, payload: dict[str, Any]) -> None:
    """Keep `payload` for the collection file at `collection` whose bytes were `source`, where the state folder may
    be written (else nothing)."""
    kept = {"collection": str(collection.resolve()), "source_sha256": hashlib.sha256(source).hexdigest(),
            "source_bytes": len(source), "code": code_fingerprint(), "payload": payload}
    try:
        write_atomic(kept_file, json.dumps(kept).encode())
    except (OSError, DiskFull):  # a read-only folder or a full disk: the command validates the file next time too
        pass
