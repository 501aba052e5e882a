"""What every stage of a command works in, built once per command: the collection, its ledger, the pinning
backend and IPFS profile, the contract, and (only when a piece must be generated) the executor.

Stages take a Workspace and return values; only command drivers fold those into reports and move the
ledger's piece pointers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mintprep.collection import Collection, CollectionSpec
from mintprep.state.contract_address import find_contract
from mintprep.ipfs import PinBackend, Profile, get_profile, make_backend
from mintprep.state.ledger import Ledger
from mintprep.base import NoProgress, ProgressSink

if TYPE_CHECKING:
    from mintprep.executors import Executor


@dataclass
class Workspace:
    col: Collection
    ledger: Ledger
    progress: ProgressSink = field(default_factory=NoProgress)
    _executor: "Executor | None" = field(default=None, repr=False)
    # The contract as read once for this command (mintprep.chain.profile.live.read_live): a LiveState, or None.
    chain_live: Any = field(default=None, repr=False)

    @classmethod
    @contextmanager
    def open(cls, col: Collection, *, readonly: bool = False,
             progress: ProgressSink | None = None) -> Iterator["Workspace"]:
        with Ledger.open(col.state_dir, readonly=readonly) as ledger:
            workspace = cls(col, ledger, progress or NoProgress())
            ledger.pinned_copies.sources.append(workspace._backend_block)
            try:
                yield workspace
            finally:
                workspace.close()

    @property
    def spec(self) -> CollectionSpec:
        return self.col.spec

    @cached_property
    def backend(self) -> PinBackend:
        return make_backend(self.spec.ipfs, self.col.state_dir)

    def _backend_block(self, cid: str) -> bytes | None:
        """A block from the collection's pinning backend, where it is not the local store the ledger reads first
        (mintprep.state.pinned_copies: a stored object lost since it was pinned is read back from there)."""
        return self.backend.fetch_block(cid) if self.backend.reads_over_network else None

    @cached_property
    def profile(self) -> Profile:
        return get_profile(self.spec.ipfs.profile)

    def deployed_contract(self) -> str | None:
        """The collection's contract address, read from the config and the ledger afresh each call: a command may
        adopt or deploy one midway."""
        return find_contract(self.col, self.ledger)

    @property
    def executor(self) -> "Executor":
        """Created on first use; it loads no model until a piece has to be generated (request keys need none)."""
        if self._executor is None:
            from mintprep.executors import make_executor
            from mintprep.state.fingerprints import fingerprint_cache

            self._executor = make_executor(self.spec.executor, self.spec.generator,
                                           fingerprint_cache(self.col.state.fingerprints))
        return self._executor

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
