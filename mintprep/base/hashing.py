"""Content keys: sha256 over bytes, a file's bytes, or canonical JSON (sorted keys, no whitespace)."""

import hashlib
import json
import os
from pathlib import Path
from typing import Any

CHUNK = 1 << 20


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The sha256 of the file at `path`, read a chunk at a time (a model's weights are gigabytes)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def content_key(value: Any) -> str:
    """The sha256 of the canonical JSON of `value`: equal inputs give equal keys across runs and machines."""
    return sha256_hex(canonical_json(value))
