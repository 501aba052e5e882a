"""A stored object read again from where it was pinned.

`.mintprep/objects/` is the ledger's local copy of the bytes it pinned: images, metadata documents, manifests. A
copy lost or garbled there (the folder copied or cleaned without it, a hand edit, a disk that rotted) is not the
collection lost: the ledger's pin rows name the CIDs those bytes were pinned as, and their blocks are read back,
each checked against its CID, first from the collection's own block store, then from the sources a command adds
(its pinning backend, `Workspace`), and the file they make checked against the object's sha256.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from mintprep.base import MintprepError, ObjectMissing, sha256_hex

if TYPE_CHECKING:
    from mintprep.ipfs import BlockFetcher

MAX_REASONS = 3  # why the last few copies could not be read, in the error: enough to act on, short enough to read


class PinnedCopies:
    """`copies(sha256)` for an ObjectStore: the bytes of a pinned copy of that object, or ObjectMissing saying why
    none could be read. `pinned_as(sha256)` lists the CIDs the ledger pinned those bytes as."""

    def __init__(self, pinned_as: Callable[[str], list[str]], blocks: Path) -> None:
        self._pinned_as = pinned_as
        self._blocks = blocks
        self.sources: list[BlockFetcher] = []  # read after the local block store, in order

    def __call__(self, sha256: str) -> bytes:
        from mintprep.ipfs import read_file  # the IPFS reader loads only when a copy is wanted (`status` never does)

        cids = self._pinned_as(sha256)
        if not cids:
            raise ObjectMissing("the ledger records no pin of it")
        reasons = []
        for fetch in self._fetchers():
            for cid in cids:
                try:
                    data = read_file(cid, fetch)
                except MintprepError as exc:  # absent, garbled, too large, or a service that failed after retries
                    reasons.append(f"ipfs://{cid}: {exc}")
                    continue
                if sha256_hex(data) == sha256:
                    return data
                reasons.append(f"ipfs://{cid}: a file of other bytes")
        raise ObjectMissing("; ".join(reasons[-MAX_REASONS:]) or "no block store to read it from")

    def _fetchers(self) -> Iterator[BlockFetcher]:
        from mintprep.ipfs import BlockStore

        if self._blocks.is_dir():
            yield BlockStore(self._blocks).get
        yield from self.sources
