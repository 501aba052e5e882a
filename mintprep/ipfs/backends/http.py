"""The parts of a pinning backend reached over HTTP (kubo, Cluster, PSA, Pinata): requests through mintprep.net's
one HTTP layer, a CAR to upload, and the read-back through a trustless gateway for services that cannot hand
blocks back. Apart from base.py so that a command reading only the local store (export, status) loads no HTTP
client.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import requests

from mintprep.base import register_secret
from mintprep.net import RetryPolicy, pooled_session, redact, send
from mintprep.ipfs.backends.base import PinBackend
from mintprep.ipfs.car import car_bytes, write_car
from mintprep.ipfs.cid import CID
from mintprep.ipfs.gateway import TrustlessGateway
from mintprep.ipfs.unixfs import Block, DagImport
from mintprep.ipfs.verify import VerifyReport


IN_MEMORY_CAR_BYTES = 1 << 20  # a CAR up to this size is built in memory: a temp file per small piece cost more


@contextlib.contextmanager
def spooled_car(dags: Sequence[DagImport], filename: str) -> Iterator[Callable[[], dict[str, Any]]]:
    """The DAGs as one CAR (a root each) and a `files=` factory giving it from byte 0 for each HTTP attempt (a retry
    must re-send it whole). A CAR larger than IN_MEMORY_CAR_BYTES waits in a temp file, not in memory."""
    roots = [dag.root for dag in dags]
    if sum(dag.size for dag in dags) <= IN_MEMORY_CAR_BYTES:
        body = car_bytes(roots, _each_once(dags))
        yield lambda: {"file": (filename, body, "application/vnd.ipld.car")}
        return
    with tempfile.TemporaryFile() as spooled:
        write_car(roots, _each_once(dags), spooled)

        def multipart() -> dict[str, Any]:
            spooled.seek(0)
            return {"file": (filename, spooled, "application/vnd.ipld.car")}

        yield multipart


def _each_once(dags: Sequence[DagImport]) -> Iterator[Block]:
    """The blocks of every DAG, a block two pieces share sent once."""
    seen: set[CID] = set()
    for dag in dags:
        for block in dag.blocks:
            if block.cid not in seen:
                seen.add(block.cid)
                yield block


class HttpBackend(PinBackend):
    """A backend reached over HTTP through mintprep.net.http: retries, Retry-After, no secrets in errors."""

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
        concurrency: int = 1,
    ) -> None:
        self.concurrency = concurrency
        self._session = pooled_session(concurrency)
        if token:
            self._session.headers["Authorization"] = f"Bearer {register_secret(token)}"
        self._policy = policy
        self._sleep = sleep

    def _send(self, method: str, url: str, **kwargs: object) -> requests.Response:
        return send(method, url, session=self._session, policy=self._policy, sleep=self._sleep, **kwargs)


class GatewayVerifiedBackend(HttpBackend):
    """A pinning service that cannot hand blocks back: content is read back through a trustless gateway."""

    def __init__(self, *, gateway: str, token: str | None, concurrency: int = 1, **http: Any) -> None:
        super().__init__(token=token, concurrency=concurrency, **http)
        self.gateway = TrustlessGateway(gateway, session=pooled_session(concurrency), **http)

    def fetch_block(self, cid: CID | str) -> bytes | None:
        return self.gateway.fetch_block(cid)

    def verify(self, cid: CID | str) -> VerifyReport:
        return self.gateway.verify(cid)
