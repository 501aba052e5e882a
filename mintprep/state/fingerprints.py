"""The fingerprint cache's file, `.mintprep/fingerprints.json`: read when a command starts, rewritten each time the
cache learns something (a file hashed, an environment probed), so a killed run keeps what it hashed. The cache
itself (mintprep.generate.fingerprint) writes nothing; a missing or unreadable file starts an empty one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mintprep.generate import FingerprintCache
from mintprep.base import write_atomic


def fingerprint_cache(path: Path) -> FingerprintCache:
    """The cache kept in `path` (StateDir.fingerprints)."""
    try:
        known = json.loads(path.read_text()) if path.is_file() else None
    except (OSError, ValueError):
        known = None

    def save(snapshot: dict[str, Any]) -> None:
        if path.parent.is_dir():  # a command that made no state folder keeps its cache in memory
            write_atomic(path, json.dumps(snapshot, sort_keys=True).encode())

    return FingerprintCache(known, on_change=save)
