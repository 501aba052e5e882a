"""What every pinning backend does, and the one rule they share: a pin is reported only once verified.

`pin_dag` = upload (a CAR where the service takes one) → refuse any root CID but ours → read the
content back and check every block and link → receipt. A service's own "pinned" status is advisory.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import requests

from mintprep.errors import RemoteError, register_secret
from mintprep.http import RetryPolicy, redact, send
from mintprep.ipfs.car import write_car
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.gateway import TrustlessGateway
from mintprep.ipfs.unixfs import DagImport
from mintprep.ipfs.verify import VerificationFailed, VerifyReport, verify_dag


@dataclass(frozen=True)
class PinReceipt:
    cid: str
    backend: str
    name: str
    verified: bool
    remote_id: str | None = None


class CidMismatch(RemoteError):
    """The backend answered a root CID other than the one computed locally: the pin is refused."""


def check_root(expected: CID, answered: str | None, backend: str, piece: str) -> None:
    """Refuse a backend's root unless it names our DAG (the same bytes; v0/v1 spelling may differ)."""
    try:
        same = answered is not None and as_cid(answered).to_v1() == expected.to_v1()
    except Exception:  # noqa: BLE001 - an unparsable answer is a mismatch, reported below
        same = False
    if not same:
        raise CidMismatch(f"{piece}: {backend} answered root CID {answered!r} but the local CID is {expected}; refusing it")


@contextlib.contextmanager
def spooled_car(dag: DagImport, filename: str) -> Iterator[Callable[[], dict[str, Any]]]:
    """The DAG as a CAR in a temp file, and a `files=` factory that rewinds it for each HTTP attempt
    (a retry must re-send from byte 0; the CAR is not held in memory)."""
    with tempfile.TemporaryFile() as car:
        write_car([dag.root], dag.blocks, car)

        def multipart() -> dict[str, Any]:
            car.seek(0)
            return {"file": (filename, car, "application/vnd.ipld.car")}

        yield multipart


class PinBackend(ABC):
    name: str

    @property
    def ledger_key(self) -> str:
        """How the ledger names this backend's pins: the embedded store is one place."""
        return self.name

    def pin_dag(self, dag: DagImport, *, name: str) -> PinReceipt:
        """Upload and pin `dag`, then prove it is retrievable intact; raise if it is not."""
        remote_id = self._upload(dag, name)
        report = self.verify(dag.root)
        if not report.ok:
            raise VerificationFailed(name, self.name, report)
        self._after_verified(dag, name)
        return PinReceipt(cid=str(dag.root), backend=self.name, name=name, verified=True, remote_id=remote_id)

    @abstractmethod
    def _upload(self, dag: DagImport, name: str) -> str | None:
        """Put the DAG on the backend and pin it; return the backend's id for the pin, if it has one."""

    def _after_verified(self, dag: DagImport, name: str) -> None:
        """Hook for backends that record the pin only after verification (the local store)."""

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


class HttpBackend(PinBackend):
    """A backend reached over HTTP through mintprep.http: retries, Retry-After, no secrets in errors."""

    api_url: str

    @property
    def ledger_key(self) -> str:
        # Two kubo nodes (or two PSA services) are two places: moving to a new one must pin everything there.
        return f"{self.name} {redact(self.api_url)}"

    def __init__(
        self,
        *,
        token: str | None,
        policy: RetryPolicy = RetryPolicy(),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._session = requests.Session()
        if token:
            self._session.headers["Authorization"] = f"Bearer {register_secret(token)}"
        self._policy = policy
        self._sleep = sleep

    def _send(self, method: str, url: str, **kwargs: object) -> requests.Response:
        return send(method, url, session=self._session, policy=self._policy, sleep=self._sleep, **kwargs)



class GatewayVerifiedBackend(HttpBackend):
    """A pinning service that cannot hand blocks back: content is read back through a trustless gateway."""

    def __init__(self, *, gateway: str, token: str | None, **http: Any) -> None:
        super().__init__(token=token, **http)
        self.gateway = TrustlessGateway(gateway, **http)

    def fetch_block(self, cid: CID | str) -> bytes | None:
        return self.gateway.fetch_block(cid)

    def verify(self, cid: CID | str) -> VerifyReport:
        return self.gateway.verify(cid)
