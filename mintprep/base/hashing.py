"""Content keys: sha256 over bytes or over canonical JSON (sorted keys, no whitespace)."""

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_key(value: Any) -> str:
    """The sha256 of the canonical JSON of `value`: equal inputs give equal keys across runs and machines."""
    return sha256_hex(canonical_json(value))
