"""The default backend: the embedded block store under `<state_dir>/ipfs/`, no server needed.

Pieces are pinned a batch at a time: every block of the batch stored at two syncs in all, each piece read back
and verified from the store, then the verified ones pinned in one transaction. A kill at any point leaves
blocks without a pin (found again, not rewritten, by the rerun) or whole pins, never a pin of a partial DAG.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from mintprep.ipfs.backends.base import PinBackend, PinReceipt, PinRequest, PinResult
from mintprep.ipfs.cid import CID
from mintprep.ipfs.errors import BlockNotFound
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import DagImport
from mintprep.ipfs.verify import VerificationFailed
from mintprep.base import StateDir

BATCH = 256  # pieces per sync: large enough that syncs vanish from the cost, small enough to bound memory


class LocalBackend(PinBackend):
    name = "local"
    reads_over_network = False

    def __init__(self, state_dir: Path) -> None:
        self.store = BlockStore(StateDir(Path(state_dir)).ipfs)

    def pin_many(self, requests: Sequence[PinRequest]) -> Iterator[PinResult]:
        for start in range(0, len(requests), BATCH):
            yield from self._pin_batch(requests, range(start, min(start + BATCH, len(requests))))

    def _pin_batch(self, requests: Sequence[PinRequest], indexes: range) -> list[PinResult]:
        dags: dict[int, DagImport] = {index: requests[index].make_dag() for index in indexes}
        self.store.put_many(block for dag in dags.values() for block in dag.blocks)
        results: list[PinResult] = []
        for index, dag in dags.items():
            report = self.verify(dag.root)
            if report.ok:
                results.append((index, PinReceipt(cid=str(dag.root), backend=self.name, name=requests[index].name,
                                                  verified=True)))
            else:
                results.append((index, VerificationFailed(requests[index].name, self.name, report)))
        # the pin set only ever names verified, complete DAGs
        self.store.add_pins((receipt.cid, receipt.name) for _, receipt in results if isinstance(receipt, PinReceipt))
        return results

    def _upload(self, dag: DagImport, name: str) -> str | None:  # the interface's; `pin_many` batches instead
        self.store.put_many(dag.blocks)
        return None

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
