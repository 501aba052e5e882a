"""The gallery as static JSON chunk files beside index.html, so the page weighs the same at 77 or 10,000 tokens.

index.html carries only where the chunks are and how many (`GallerySection`); app.js fetches
`<path><i>.json` in order as the visitor scrolls. The chunk folder is named by a digest of every
chunk, so a changed gallery gets new URLs (hosts may cache them forever) and an index.html never
pairs with chunks from another build.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mintprep.base import canonical_json, content_key, sha256_hex

# Bytes of token entries per chunk: ~120 tokens of a typical manifest, 2-3 screens of cards. The first chunk loads
# with the page, so it is smaller: ~60 tokens, the first batch of cards app.js shows (48), and no more of the
# page's first-load weight than that.
CHUNK_BYTES = 16 * 1024
FIRST_CHUNK_BYTES = 8 * 1024
_GALLERY_PATH = re.compile(r"^gallery/[0-9a-f]{16}/$")


@dataclass(frozen=True)
class Gallery:
    section: dict[str, Any]  # what index.html embeds: {"path", "chunks", "tokens"}
    files: dict[str, bytes]  # site-relative path -> chunk bytes


def split_gallery(entries: Sequence[Any], chunk_bytes: int = CHUNK_BYTES,
                  first_chunk_bytes: int = FIRST_CHUNK_BYTES) -> Gallery:
    """Token entries → chunk files of at most `chunk_bytes` (the first: at most `first_chunk_bytes`, when that is
    less; one entry per chunk at least), in order."""
    chunks: list[list[bytes]] = []
    size = 0
    for entry in entries:
        encoded = canonical_json(entry)
        limit = min(first_chunk_bytes, chunk_bytes) if len(chunks) <= 1 else chunk_bytes
        if not chunks or size + len(encoded) + 1 > limit:
            chunks.append([])
            size = 1  # the opening bracket; each entry adds a comma or the closing bracket
        chunks[-1].append(encoded)
        size += len(encoded) + 1
    bodies = [b"[" + b",".join(chunk) + b"]" for chunk in chunks]
    path = f"gallery/{content_key([sha256_hex(body) for body in bodies])[:16]}/"
    section = {"path": path, "chunks": len(bodies), "tokens": len(entries)}
    return Gallery(section, {f"{path}{i}.json": body for i, body in enumerate(bodies)})


def read_gallery(site_dir: Path, section: Any) -> tuple[list[Any], list[str]]:
    """The entries a built page's chunks hold, in gallery order, and the chunk paths that could not be read.

    An unreadable chunk is a gap in what visitors see, so its tokens are simply absent from the result.
    """
    if not isinstance(section, dict) or not _GALLERY_PATH.match(str(section.get("path"))):
        raise ValueError(f"not a gallery section: {section!r}")
    entries: list[Any] = []
    unreadable: list[str] = []
    for i in range(int(section["chunks"])):
        rel = f"{section['path']}{i}.json"
        try:
            chunk = json.loads((site_dir / rel).read_bytes())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            chunk = None
        if isinstance(chunk, list):
            entries.extend(chunk)
        else:
            unreadable.append(rel)
    return entries, unreadable
