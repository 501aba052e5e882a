"""Read UnixFS content back out of a block source without trusting it: every block is hashed against its CID.

`audit` uses this to judge what is actually pinned (the bytes a collector's gateway would serve), not a
local copy. A block source is any `fetch_block(cid)` — a backend, a trustless gateway, the local store —
returning the bytes, or None / raising BlockNotFound when it does not have them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from mintprep.ipfs.cid import CID, RAW, as_cid
from mintprep.ipfs.dagpb import DIRECTORY, FILE, HAMT_SHARD, RAW_TYPE, PBNode, UnixFSData, decode_pbnode, decode_unixfs
from mintprep.ipfs.dag import BlockFetcher, WalkBudget, fetch_verified
from mintprep.ipfs.errors import CorruptBlock, FileTooLarge, NotUnixFS, TooLarge

MAX_FILE_BYTES = 1 << 30  # a file read without a caller's bound: far above any art mintprep makes or imports
MIN_AVERAGE_BLOCK_BYTES = 1024  # a file's blocks budget: one per KiB of its bound (kubo's chunks are 256 KiB)
MIN_FILE_BLOCKS = 4096
KEPT_BLOCKS, KEPT_BLOCK_BYTES = 65_536, 256  # what a file's walk remembers of blocks it may meet again
MAX_DIRECTORY_ENTRIES = 1_000_000  # a directory read without a caller's bound (a 10,000-token collection: 10,000)


def file_budget(max_bytes: int, what: str) -> WalkBudget:
    """A file's walk budget: its bound in bytes, and blocks to match. A DAG that names one 1-byte child twice at
    each of 27 levels is a 128 MiB file of 2^27 reads: refused at the first bound it passes, in milliseconds."""
    blocks = max(MIN_FILE_BLOCKS, max_bytes // MIN_AVERAGE_BLOCK_BYTES)
    return WalkBudget(blocks, max_bytes + blocks * 256, what)  # bytes read: content plus each block's framing


def read_file(root: CID | str, fetch_block: BlockFetcher, max_bytes: int | None = None) -> bytes:
    """The whole content of a UnixFS file (raw leaf, or dag-pb tree with raw or dag-pb leaves); with `max_bytes`
    (else MAX_FILE_BYTES), FileTooLarge once its root claims more or it grows past them (a stranger's "image" is
    never held whole past the bound), or its walk visits more blocks than that size needs (`file_budget`)."""
    root = as_cid(root)
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    if root.codec == RAW:  # a one-block file (a metadata document, a small image): nothing to walk or join
        data = fetch_verified(root, fetch_block)
        if len(data) > limit:
            raise FileTooLarge(f"more than {limit} bytes")
        return data
    parts, size = [], 0
    for chunk in iter_file(root, fetch_block, limit):
        size += len(chunk)
        if size > limit:
            raise FileTooLarge(f"more than {limit} bytes")
        parts.append(chunk)
    return b"".join(parts)


def file_sha256(root: CID | str, fetch_block: BlockFetcher, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The sha256 (hex) of a UnixFS file's content, hashed as its blocks stream by (never held whole)."""
    digest = hashlib.sha256()
    for chunk in iter_file(root, fetch_block, max_bytes):
        digest.update(chunk)
    return digest.hexdigest()


def content_sha256(root: CID, content: bytes) -> str:
    """The sha256 (hex) of a file's content as `read_file(root)` returned it: for a raw root, which is the whole file
    and was checked against its CID as it was read, the CID's own digest (an image is not hashed twice)."""
    return root.digest.hex() if root.codec == RAW else hashlib.sha256(content).hexdigest()


def iter_file(root: CID | str, fetch_block: BlockFetcher, max_bytes: int = MAX_FILE_BYTES) -> Iterator[bytes]:
    """A UnixFS file's content in order, block by block (for streaming it out); FileTooLarge as soon as the root
    claims more than `max_bytes` or the walk passes the `file_budget` for them. A child a file links twice is read
    twice (its bytes are in the file twice), so the budget, not a visited set, bounds a diamond here."""
    # A node's own Data bytes come before its children's (UnixFS spec), children in link order.
    root = as_cid(root)
    budget = file_budget(max_bytes, f"file {root}")
    # A small block named again (a diamond's) is not fetched, hashed and decoded again; a large one is read again,
    # each time paid for in the budget's bytes, so a streamed file is never held here.
    read: dict[CID, tuple[int, bytes, tuple[CID, ...]]] = {}
    stack = [root]
    while stack:
        cid = stack.pop()
        known = read.get(cid)
        if known is None:
            known = _file_node(cid, fetch_verified(cid, fetch_block), cid == root, max_bytes)
            if len(known[1]) <= KEPT_BLOCK_BYTES and len(read) < KEPT_BLOCKS:
                read[cid] = known
        size, content, children = known
        try:
            budget.spend(size)
        except TooLarge as exc:
            raise FileTooLarge(str(exc)) from None
        if content:
            yield content
        stack.extend(reversed(children))


def _file_node(cid: CID, data: bytes, is_root: bool, max_bytes: int) -> tuple[int, bytes, tuple[CID, ...]]:
    """(block size, the content bytes it holds, its children) of one block of a UnixFS file."""
    if cid.codec == RAW:
        return len(data), data, ()
    node, unixfs = _decode(cid, data)
    if unixfs.type not in (FILE, RAW_TYPE):
        raise NotUnixFS(f"{cid} is not a file (UnixFS type {unixfs.type})")
    if is_root and (unixfs.filesize or 0) > max_bytes:
        raise FileTooLarge(f"more than {max_bytes} bytes")  # as its root says: refused before it is read
    return len(data), unixfs.data or b"", tuple(link.cid for link in node.links)


def list_directory(root: CID | str, fetch_block: BlockFetcher, max_entries: int = MAX_DIRECTORY_ENTRIES) -> dict[str, CID]:
    """Entry name → CID of a UnixFS directory, basic or HAMT-sharded (every shard block fetched and checked);
    TooLarge past `max_entries` (what the caller expects: a collection's size), CorruptBlock for a shard linked
    twice (a valid HAMT names each shard once: 256 buckets naming one sub-shard, 3 levels deep, is 16 million
    visits of three blocks)."""
    root = as_cid(root)
    node, unixfs = _decode(root, fetch_verified(root, fetch_block))
    if unixfs.type == DIRECTORY:
        if len(node.links) > max_entries:
            raise TooLarge(f"directory {root} has {len(node.links)} entries, more than the {max_entries} expected")
        return {link.name: link.cid for link in node.links}
    if unixfs.type != HAMT_SHARD:
        raise NotUnixFS(f"{root} is not a directory (UnixFS type {unixfs.type})")
    entries: dict[str, CID] = {}
    shards, seen = [(node, unixfs.fanout or 256)], {root}
    while shards:
        shard, fanout = shards.pop()
        label_length = len(f"{fanout - 1:X}")
        for link in shard.links:
            if len(link.name) > label_length:
                entries[link.name[label_length:]] = link.cid
                if len(entries) > max_entries:
                    raise TooLarge(f"directory {root} has more than the {max_entries} entries expected")
                continue
            if link.cid in seen:
                raise CorruptBlock(link.cid, f"a HAMT shard linked twice under {root}")
            seen.add(link.cid)
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
