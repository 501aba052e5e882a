"""What every pinning backend does, and the one rule they share: a pin is reported only once verified.

`pin_dag` = upload (a CAR where the service takes one) → refuse any root CID but ours → read the
content back and check every block and link → receipt. A service's own "pinned" status is advisory.

`pin_many` does the same for many pieces with `concurrency` requests in flight: uploads first (a backend may send
several pieces in one request), each piece's read-back as soon as its upload is done. A service that pins in its
own time (PSA, IPFS Cluster) answers `Waiting` pieces: they are looked at again when due, without holding a worker
meanwhile, so the other pieces' requests keep the pool busy. Results come back in the calling thread, so the ledger
keeps a single writer; a piece that fails is reported with its error and the others go on.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Union

from mintprep.base import CidMismatch, RemoteError
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport
from mintprep.ipfs.verify import VerificationFailed, VerifyReport, verify_dag


@dataclass(frozen=True)
class PinReceipt:
    cid: str
    backend: str
    name: str
    verified: bool
    remote_id: str | None = None


@dataclass(frozen=True)
class PinRequest:
    name: str
    make_dag: Callable[[], DagImport]  # called in a worker when the piece is uploaded, so few DAGs are in memory


@dataclass(frozen=True)
class Uploaded:
    """A piece the backend took, waiting to be read back."""

    index: int
    root: CID
    remote_id: str | None


@dataclass(frozen=True)
class Waiting:
    """Pieces the service took but has not finished pinning: `_look_again(watch)` at `due` (time.monotonic())."""

    due: float
    watch: Any  # the backend's own record of what it waits for


PinResult = tuple[int, Union[PinReceipt, RemoteError]]  # (index into the requests, what became of that piece)
UploadResult = Union[Uploaded, Waiting, PinResult]
FIRST_POLL_S = 0.25  # a service's status is first asked this long after it took a piece, then at doubling waits
LONGEST_POLL_S = 10.0


def check_root(expected: CID, answered: str | None, backend: str, piece: str) -> None:
    """Refuse a backend's root unless it names our DAG (the same bytes; v0/v1 spelling may differ)."""
    try:
        same = answered is not None and as_cid(answered).to_v1() == expected.to_v1()
    except Exception:  # noqa: BLE001 - an unparsable answer is a mismatch, reported below
        same = False
    if not same:
        raise CidMismatch(f"{piece}: {backend} answered root CID {answered!r} but the local CID is {expected}; refusing it")


class PinBackend(ABC):
    name: str
    concurrency: int = 1
    reads_over_network = True  # a block read makes a round trip (mintprep.ipfs.dag.NetworkReads counts them)
    _sleep: Callable[[float], None] = staticmethod(time.sleep)

    @property
    def ledger_key(self) -> str:
        """How the ledger names this backend's pins: the embedded store is one place."""
        return self.name

    def pin_dag(self, dag: DagImport, *, name: str) -> PinReceipt:
        """Upload and pin `dag`, then prove it is retrievable intact; raise if it is not."""
        [(_, outcome)] = self.pin_many([PinRequest(name, lambda: dag)])
        if isinstance(outcome, RemoteError):
            raise outcome
        return outcome

    def pin_many(self, requests: Sequence[PinRequest]) -> Iterator[PinResult]:
        """Pin every request; yield (index, receipt or error) as each piece finishes, in the calling thread."""
        pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix=f"pin-{self.name}")
        waits: list[tuple[float, int, Waiting]] = []  # a heap by due time
        order = itertools.count()
        # Finished tasks come through a queue, one at a time: `concurrent.futures.wait` visits every pending future
        # on each call, and with 1,000 one-piece uploads queued a Pinata run spent over 2 ms of CPU per piece there.
        finished: queue.SimpleQueue[Future[list[UploadResult]]] = queue.SimpleQueue()
        outstanding = 0

        def submit(task: Callable[..., list[UploadResult]], *args: Any) -> None:
            nonlocal outstanding
            outstanding += 1
            pool.submit(task, *args).add_done_callback(finished.put)

        try:
            for share in self._shares(len(requests)):
                submit(self._upload_share, requests, share)
            while outstanding or waits:
                while waits and (waits[0][0] <= time.monotonic() or not outstanding):
                    due, _, waiting = heapq.heappop(waits)
                    left = due - time.monotonic()
                    if left > 0:  # nothing else to do meanwhile
                        self._sleep(left)
                    submit(self._look_again, waiting.watch)
                try:
                    future = finished.get(timeout=max(0.0, waits[0][0] - time.monotonic()) if waits else None)
                except queue.Empty:  # a waiting piece is due
                    continue
                outstanding -= 1
                for item in future.result():
                    if isinstance(item, Uploaded):
                        submit(self._read_back, requests[item.index].name, item)
                    elif isinstance(item, Waiting):
                        heapq.heappush(waits, (item.due, next(order), item))
                    else:
                        yield item
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _shares(self, count: int) -> Iterable[list[int]]:
        """How the requests are split among upload tasks: one piece each, unless a backend sends several at once."""
        return ([index] for index in range(count))

    def _upload_share(self, requests: Sequence[PinRequest], share: list[int]) -> list[UploadResult]:
        uploaded: list[UploadResult] = []
        for index in share:
            try:
                dag = requests[index].make_dag()
                uploaded.append(Uploaded(index, dag.root, self._upload(dag, requests[index].name)))
            except RemoteError as error:
                uploaded.append((index, error))
        return uploaded

    def _read_back(self, name: str, uploaded: Uploaded) -> list[PinResult]:
        try:
            report = self.verify(uploaded.root)
            if not report.ok:
                raise VerificationFailed(name, self.name, report)
        except RemoteError as error:
            return [(uploaded.index, error)]
        return [(uploaded.index, PinReceipt(cid=str(uploaded.root), backend=self.name, name=name, verified=True,
                                            remote_id=uploaded.remote_id))]

    @abstractmethod
    def _upload(self, dag: DagImport, name: str) -> str | None:
        """Put the DAG on the backend and pin it; return the backend's id for the pin, if it has one."""

    def _look_again(self, watch: Any) -> list[UploadResult]:
        """Ask the service about pieces an upload answered `Waiting` for (only backends that answer it)."""
        raise NotImplementedError(f"{self.name} never waits")

    def verify(self, cid: CID | str) -> VerifyReport:
        return verify_dag(cid, self.fetch_block)

    @abstractmethod
    def fetch_block(self, cid: CID | str) -> bytes | None:
        """One block's bytes as the backend serves them (unchecked), None when it has none."""

    @abstractmethod
    def unpin(self, cid: CID | str) -> None:
        """Remove the pin; unpinning what is not pinned is not an error."""

    @abstractmethod
    def is_pinned(self, cid: CID | str) -> bool: ...

    @abstractmethod
    def list_pins(self) -> list[str]: ...
