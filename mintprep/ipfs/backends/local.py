"""The default backend: the embedded block store under `<state_dir>/ipfs/`, no server needed."""

from __future__ import annotations

from pathlib import Path

from mintprep.ipfs.backends.base import PinBackend
from mintprep.ipfs.cid import CID
from mintprep.ipfs.errors import BlockNotFound
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import DagImport
from mintprep.state.paths import StateDir


class LocalBackend(PinBackend):
    name = "local"

    def __init__(self, state_dir: Path) -> None:
        self.store = BlockStore(StateDir(Path(state_dir)).ipfs)

    def _upload(self, dag: DagImport, name: str) -> str | None:
        self.store.put_many(dag.blocks)
        return None

    def _after_verified(self, root: CID, name: str) -> None:
        self.store.add_pin(root, name)  # the pin set only ever names verified, complete DAGs

    def fetch_block(self, cid: CID | str) -> bytes | None:
        try:
            return self.store.get(cid)
        except BlockNotFound:
            return None

    def unpin(self, cid: CID | str) -> None:
        self.store.remove_pin(cid)

    def is_pinned(self, cid: CID | str) -> bool:
        return self.store.is_pinned(cid)

    def list_pins(self) -> list[str]:
        return sorted(self.store.read_pins())

    def collect_garbage(self) -> int:
        """Delete blocks of unpinned DAGs (a replaced broken image); return how many."""
        return self.store.collect_garbage()
