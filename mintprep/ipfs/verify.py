"""Prove a DAG is retrievable: walk it from the root, hash every block, require every link present.

"Pinned" is only believed after this walk succeeds against the place the content was pinned to;
a service's status field is advisory (research/ipfs.md §6: "pinned" with an incomplete DAG).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import requests

from mintprep.base import MintprepError, RemoteError, ServiceUnavailable, VerificationFailed
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


def verify_from_car(root: CID | str, car_blocks: Callable[[], Iterable["Block"]],
                    fetch_block: BlockFetcher) -> VerifyReport:
    """`verify_dag` over the blocks of one CAR of the DAG (one request, not one per block); whatever the CAR lacks
    (it failed, was truncated, or a block is corrupt) is fetched block by block. `car_blocks` may raise
    MintprepError (a CarError, a RemoteError): the walk then fetches what it lacks."""
    received: dict[CID, bytes] = {}
    try:
        for block in car_blocks():
            received[block.cid] = block.data
    except ServiceUnavailable:
        raise  # the service is down: asking it block by block would only wait the give-up time again
    except (MintprepError, requests.RequestException):
        pass  # a truncated or failed stream: whatever it lacked is fetched block by block

    def fetch(cid: CID) -> bytes | None:
        return received.pop(cid) if cid in received else fetch_block(cid)

    return verify_dag(root, fetch)


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
