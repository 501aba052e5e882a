"""The one walk over a DAG: every block under a root once, a node before its children, children in link order
(DFS pre-order, the order kubo writes a CAR in). The local store, the verifier and the importer all walk with it.

Every read here is bounded, because a DAG may be a stranger's: a block over `MAX_BLOCK_BYTES` (2 MiB, the most
bitswap carries; setting `ipfs.max_block_bytes`) is refused before it is hashed or decoded, a walk remembers what it
saw (a diamond costs its distinct blocks, not its paths), and a `WalkBudget` the caller sets from what it expects
(an image's bound, a directory's entry count) stops a walk past it. Identity CIDs are read as the inline bytes
they are, never fetched."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.dagpb import child_links
from mintprep.ipfs.errors import BlockNotFound, CorruptBlock, TooLarge, Unreadable
from mintprep.ipfs.unixfs import Block

# A block source: a backend, a trustless gateway, the local store. Bytes, or None / BlockNotFound when absent.
BlockFetcher = Callable[[CID], "bytes | None"]

MAX_BLOCK_BYTES = 2 << 20  # bitswap's limit; kubo makes no block over 1 MiB without --allow-big-block


@dataclass
class WalkBudget:
    """What one walk may cost, set by its caller from what it expects: blocks visited (a file's repeated child
    counts each time it is read, since its bytes are) and their bytes. `spend` raises TooLarge past either."""

    max_blocks: int
    max_bytes: int
    what: str = "the DAG"
    blocks: int = 0
    bytes: int = 0

    def spend(self, size: int) -> None:
        self.blocks += 1
        self.bytes += size
        if self.blocks > self.max_blocks:
            raise TooLarge(f"{self.what} has more than {self.max_blocks} blocks")
        if self.bytes > self.max_bytes:
            raise TooLarge(f"{self.what} is more than {self.max_bytes} bytes")


def _checked_size(cid: CID, data: bytes, max_block_bytes: int) -> bytes:
    if len(data) > max_block_bytes:
        raise TooLarge(f"block {cid} is {len(data)} bytes, over the {max_block_bytes}-byte block limit "
                       "(ipfs.max_block_bytes)")
    return data


def fetch_verified(cid: CID | str, fetch_block: BlockFetcher, max_block_bytes: int = MAX_BLOCK_BYTES) -> bytes:
    """One block, checked against its CID; BlockNotFound when the source lacks it, CorruptBlock when it lies,
    TooLarge over `max_block_bytes` (before it is hashed). An identity CID's block is its inline bytes."""
    cid = as_cid(cid)
    if cid.inline is not None:
        return cid.inline
    try:
        data = fetch_block(cid)
    except BlockNotFound:
        data = None
    if data is None:
        raise BlockNotFound(str(cid))
    if not cid.matches(_checked_size(cid, data, max_block_bytes)):
        raise CorruptBlock(cid, "bytes do not hash to the CID")
    return bytes(data)


def walk_dag(root: CID | str, fetch_block: BlockFetcher, budget: WalkBudget | None = None,
             max_block_bytes: int = MAX_BLOCK_BYTES) -> Iterator[Block | Unreadable]:
    """Each block under `root` once, or in its place the reason it cannot be read, which is not descended into:
    BlockNotFound when `fetch_block` lacks it, CorruptBlock when `fetch_block` says so (a verifying fetcher such as
    `fetch_verified`) or its links do not decode, TooLarge over `max_block_bytes`. The bytes are checked only as far
    as `fetch_block` checks them. Past `budget` the walk raises TooLarge."""
    seen: set[CID] = set()
    stack = [as_cid(root)]
    while stack:
        cid = stack.pop()
        if cid in seen:
            continue
        seen.add(cid)
        try:
            data = cid.inline if cid.inline is not None else fetch_block(cid)
            if data is None:
                raise BlockNotFound(cid)
            _checked_size(cid, data, max_block_bytes)
            links = child_links(cid, data)
        except BlockNotFound:
            yield BlockNotFound(cid)
            continue
        except CorruptBlock as corrupt:
            yield corrupt
            continue
        except TooLarge as large:
            yield CorruptBlock(cid, str(large))
            continue
        except ValueError as exc:  # hashes right (or unchecked) but is not dag-pb: its links cannot be followed
            yield CorruptBlock(cid, f"not a dag-pb node ({exc})")
            continue
        if budget is not None:
            budget.spend(len(data))
        yield Block(cid, data)
        stack.extend(link.cid for link in reversed(links))


class VerifiedBlocks:
    """Blocks already checked against their CIDs, kept so a DAG read once is not fetched again while it is still
    wanted, and at most `max_bytes` of them, the oldest dropped first: a walk over a collection's 10,000 images
    (provenance, an import's image directory) held every image it had read before this bound."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._blocks: dict[CID, bytes] = {}
        self._lock = threading.Lock()  # readers in threads share one cache (an import's gateway reads)

    def get(self, cid: CID) -> bytes | None:
        return self._blocks.get(cid)

    def add(self, cid: CID, data: bytes) -> None:
        with self._lock:
            if cid in self._blocks:
                return
            self._blocks[cid] = data
            self.bytes += len(data)
            self._evict()

    def resize(self, max_bytes: int) -> None:
        with self._lock:
            self.max_bytes = max_bytes
            self._evict()

    def _evict(self) -> None:
        while self.bytes > self.max_bytes:
            self.bytes -= len(self._blocks.pop(next(iter(self._blocks))))

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._blocks)


class NetworkReads:
    """Counts the blocks read through sources that make a round trip (a gateway, a remote backend), to say whether
    reading side by side pays: from the local store, 16 threads took 1.3x (import) to 3x (provenance) the time of
    one, measured; through a gateway at 50 ms a request, a fifteenth. Threads add to it unlocked: a lost increment
    cannot turn "some" into "none"."""

    def __init__(self) -> None:
        self.count = 0

    def counted(self, fetch_block: BlockFetcher) -> BlockFetcher:
        def fetch(cid: CID) -> bytes | None:
            self.count += 1
            return fetch_block(cid)

        return fetch

    def backend(self, backend: object) -> BlockFetcher:
        """`backend`'s fetch_block, counted unless it reads no network (the local store)."""
        fetch_block = backend.fetch_block  # type: ignore[attr-defined]
        return self.counted(fetch_block) if getattr(backend, "reads_over_network", True) else fetch_block

    def threads(self, wanted: int) -> Callable[[], int]:
        """For `in_order`, asked after the first item: `wanted` threads if it read over the network, else one."""
        return lambda: wanted if self.count else 1


def first_verified(sources: "list[BlockFetcher]", seen: VerifiedBlocks | None = None,
                   max_block_bytes: int = MAX_BLOCK_BYTES) -> BlockFetcher:
    """A block source asking each of `sources` in turn; only bytes matching their CID are kept (in `seen`). A block
    over `max_block_bytes` from every source raises TooLarge (said so, not called missing)."""
    cache = VerifiedBlocks() if seen is None else seen

    def fetch(cid: CID | str) -> bytes | None:
        cid = as_cid(cid)
        cached = cache.get(cid)
        if cached is not None:
            return cached
        too_large: TooLarge | None = None
        for source in sources:
            try:
                data = fetch_verified(cid, source, max_block_bytes)
            except TooLarge as large:
                too_large = large
                continue
            except Unreadable:
                continue
            cache.add(cid, data)
            return data
        if too_large is not None:
            raise too_large
        return None

    return fetch
