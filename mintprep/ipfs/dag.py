"""The one walk over a DAG: every block under a root once, a node before its children, children in link order
(DFS pre-order, the order kubo writes a CAR in). The local store, the verifier and the importer all walk with it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.dagpb import child_links
from mintprep.ipfs.errors import BlockNotFound, CorruptBlock, Unreadable
from mintprep.ipfs.unixfs import Block

# A block source: a backend, a trustless gateway, the local store. Bytes, or None / BlockNotFound when absent.
BlockFetcher = Callable[[CID], "bytes | None"]


def fetch_verified(cid: CID | str, fetch_block: BlockFetcher) -> bytes:
    """One block, checked against its CID; BlockNotFound when the source lacks it, CorruptBlock when it lies."""
    cid = as_cid(cid)
    try:
        data = fetch_block(cid)
    except BlockNotFound:
        data = None
    if data is None:
        raise BlockNotFound(str(cid))
    if not cid.matches(data):
        raise CorruptBlock(cid, "bytes do not hash to the CID")
    return bytes(data)


def walk_dag(root: CID | str, fetch_block: BlockFetcher) -> Iterator[Block | Unreadable]:
    """Each block under `root` once, or in its place the reason it cannot be read, which is not descended into:
    BlockNotFound when `fetch_block` lacks it, CorruptBlock when `fetch_block` says so (a verifying fetcher such as
    `fetch_verified`) or its links do not decode. The bytes are checked only as far as `fetch_block` checks them."""
    seen: set[CID] = set()
    stack = [as_cid(root)]
    while stack:
        cid = stack.pop()
        if cid in seen:
            continue
        seen.add(cid)
        try:
            data = fetch_block(cid)
            if data is None:
                raise BlockNotFound(cid)
            links = child_links(cid, data)
        except BlockNotFound:
            yield BlockNotFound(cid)
            continue
        except CorruptBlock as corrupt:
            yield corrupt
            continue
        except ValueError as exc:  # hashes right (or unchecked) but is not dag-pb: its links cannot be followed
            yield CorruptBlock(cid, f"not a dag-pb node ({exc})")
            continue
        yield Block(cid, data)
        stack.extend(link.cid for link in reversed(links))
