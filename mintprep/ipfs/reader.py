"""Read UnixFS content back out of a block source without trusting it: every block is hashed against its CID.

`audit` uses this to judge what is actually pinned (the bytes a collector's gateway would serve), not a
local copy. A block source is any `fetch_block(cid)` — a backend, a trustless gateway, the local store —
returning the bytes, or None / raising BlockNotFound when it does not have them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from mintprep.ipfs.cid import CID, RAW, as_cid
from mintprep.ipfs.dagpb import (DIRECTORY, FILE, HAMT_SHARD, RAW_TYPE, PBNode, UnixFSData, decode_pbnode,
                                 decode_unixfs)
from mintprep.ipfs.dag import BlockFetcher, fetch_verified
from mintprep.ipfs.errors import CorruptBlock, FileTooLarge, NotUnixFS


def read_file(root: CID | str, fetch_block: BlockFetcher, max_bytes: int | None = None) -> bytes:
    """The whole content of a UnixFS file (raw leaf, or dag-pb tree with raw or dag-pb leaves); with `max_bytes`,
    FileTooLarge as soon as it grows past them (a stranger's "image" is never held whole past the bound)."""
    root = as_cid(root)
    if root.codec == RAW:  # a one-block file (a metadata document, a small image): nothing to walk or join
        data = fetch_verified(root, fetch_block)
        if max_bytes is not None and len(data) > max_bytes:
            raise FileTooLarge(f"more than {max_bytes} bytes")
        return data
    parts, size = [], 0
    for chunk in iter_file(root, fetch_block):
        size += len(chunk)
        if max_bytes is not None and size > max_bytes:
            raise FileTooLarge(f"more than {max_bytes} bytes")
        parts.append(chunk)
    return b"".join(parts)


def file_sha256(root: CID | str, fetch_block: BlockFetcher) -> str:
    """The sha256 (hex) of a UnixFS file's content, hashed as its blocks stream by (never held whole)."""
    digest = hashlib.sha256()
    for chunk in iter_file(root, fetch_block):
        digest.update(chunk)
    return digest.hexdigest()


def content_sha256(root: CID, content: bytes) -> str:
    """The sha256 (hex) of a file's content as `read_file(root)` returned it: for a raw root, which is the whole file
    and was checked against its CID as it was read, the CID's own digest (an image is not hashed twice)."""
    return root.digest.hex() if root.codec == RAW else hashlib.sha256(content).hexdigest()


def iter_file(root: CID | str, fetch_block: BlockFetcher) -> Iterator[bytes]:
    """A UnixFS file's content in order, block by block (for streaming it out)."""
    # A node's own Data bytes come before its children's (UnixFS spec), children in link order.
    stack = [as_cid(root)]
    while stack:
        cid = stack.pop()
        data = fetch_verified(cid, fetch_block)
        if cid.codec == RAW:
            yield data
            continue
        node, unixfs = _decode(cid, data)
        if unixfs.type not in (FILE, RAW_TYPE):
            raise NotUnixFS(f"{cid} is not a file (UnixFS type {unixfs.type})")
        if unixfs.data:
            yield unixfs.data
        stack.extend(link.cid for link in reversed(node.links))


def list_directory(root: CID | str, fetch_block: BlockFetcher) -> dict[str, CID]:
    """Entry name → CID of a UnixFS directory, basic or HAMT-sharded (every shard block fetched and checked)."""
    root = as_cid(root)
    node, unixfs = _decode(root, fetch_verified(root, fetch_block))
    if unixfs.type == DIRECTORY:
        return {link.name: link.cid for link in node.links}
    if unixfs.type != HAMT_SHARD:
        raise NotUnixFS(f"{root} is not a directory (UnixFS type {unixfs.type})")
    entries: dict[str, CID] = {}
    shards = [(node, unixfs.fanout or 256)]
    while shards:
        shard, fanout = shards.pop()
        label_length = len(f"{fanout - 1:X}")
        for link in shard.links:
            if len(link.name) > label_length:
                entries[link.name[label_length:]] = link.cid
                continue
            child, child_unixfs = _decode(link.cid, fetch_verified(link.cid, fetch_block))
            if child_unixfs.type != HAMT_SHARD:
                raise CorruptBlock(link.cid, "a HAMT bucket link that is not a shard")
            shards.append((child, child_unixfs.fanout or fanout))
    return entries


def _decode(cid: CID, data: bytes) -> tuple[PBNode, UnixFSData]:
    try:
        node = decode_pbnode(data)
        return node, decode_unixfs(node.data or b"")
    except ValueError as exc:
        raise CorruptBlock(cid, f"not a UnixFS dag-pb node ({exc})") from None
