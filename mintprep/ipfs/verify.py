"""Prove a DAG is retrievable: walk it from the root, hash every block, require every link present.

"Pinned" is only believed after this walk succeeds against the place the content was pinned to;
a service's status field is advisory (a service that reported "pinned" while the DAG was incomplete: nftstorage/nft.storage#2062).
"""

from __future__ import annotations

from dataclasses import dataclass

from mintprep.base import VerificationFailed  # noqa: F401 - raised by the backends that verify with this module
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.dag import BlockFetcher, fetch_verified, walk_dag
from mintprep.ipfs.errors import BlockNotFound
from mintprep.ipfs.unixfs import Block


@dataclass(frozen=True)
class VerifyReport:
    root: CID
    blocks: int  # blocks fetched and found to match their CIDs
    missing: tuple[CID, ...]
    corrupt: tuple[CID, ...]

    @property
    def ok(self) -> bool:
        return not self.missing and not self.corrupt

    def describe(self) -> str:
        if self.ok:
            return f"{self.root}: {self.blocks} blocks verified"
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} missing ({', '.join(map(str, self.missing[:5]))})")
        if self.corrupt:
            parts.append(f"{len(self.corrupt)} corrupt ({', '.join(map(str, self.corrupt[:5]))})")
        return f"{self.root}: DAG incomplete or corrupt: {'; '.join(parts)}"


def verify_dag(root: CID | str, fetch_block: BlockFetcher) -> VerifyReport:
    """Walk the DAG under `root` with `fetch_block` (bytes, or None / BlockNotFound when absent).

    A corrupt block is not descended into: its links cannot be trusted.
    """
    root = as_cid(root)
    missing: list[CID] = []
    corrupt: list[CID] = []
    verified = 0
    for step in walk_dag(root, lambda cid: fetch_verified(cid, fetch_block)):
        if isinstance(step, Block):
            verified += 1
        else:  # a block that hashes right but is not dag-pb is corrupt too: the CID itself names garbage
            (missing if isinstance(step, BlockNotFound) else corrupt).append(step.cid)
    return VerifyReport(root, verified, tuple(missing), tuple(corrupt))
