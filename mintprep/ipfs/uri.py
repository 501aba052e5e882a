"""Content addresses as metadata writes them: `ipfs://CID[/path]`, or a gateway URL `https://host/ipfs/CID[/path]`.

Resolving walks the path through UnixFS directories with verified blocks, so the answer is the CID of the
file itself, whichever form the URI took.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from mintprep.base import UserError
from mintprep.ipfs.cid import CID
from mintprep.ipfs.dag import BlockFetcher
from mintprep.ipfs.errors import NotUnixFS
from mintprep.ipfs.reader import list_directory


def ipfs_path(uri: str) -> tuple[CID, list[str]] | None:
    """(root CID, path segments) of an ipfs:// URI or a path-style gateway URL; None for anything else."""
    if uri.startswith("ipfs://"):
        rest = uri[len("ipfs://"):]
        if rest.startswith("ipfs/"):
            rest = rest[len("ipfs/"):]
    else:
        parts = urlsplit(uri)
        if parts.scheme not in ("http", "https") or not parts.path.startswith("/ipfs/"):
            return None
        rest = parts.path[len("/ipfs/"):]
    head, *segments = [unquote(s) for s in rest.split("/")]
    try:
        return CID.parse(head), [s for s in segments if s]
    except UserError:
        return None


def resolve(uri: str, fetch_block: BlockFetcher, listings: dict[CID, dict[str, CID]] | None = None) -> CID | None:
    """The CID `uri` names after walking its path; None when it is no IPFS address. Raises BlockNotFound,
    CorruptBlock or NotUnixFS (a segment absent from its directory is NotUnixFS) when it cannot be walked.

    `listings` caches directories across calls: 10,000 images under one directory are listed once, not 10,000 times.
    """
    parsed = ipfs_path(uri)
    if parsed is None:
        return None
    cid, segments = parsed
    cache = {} if listings is None else listings
    for segment in segments:
        if cid not in cache:
            cache[cid] = list_directory(cid, fetch_block)
        listing = cache[cid]
        if segment not in listing:
            raise NotUnixFS(f"{cid} has no entry {segment!r}")
        cid = listing[segment]
    return cid
