"""The kubo RPC API (`/api/v0/…`), which IPFS Cluster's proxy (:9095) also speaks.

Upload is `dag/import` of our CAR (kubo cannot re-chunk it), then `pin/add` with the piece's name:
through Cluster's proxy `dag/import` is not cluster-pinned, `pin/add` is. Kubo reports command errors
as HTTP 500 with a JSON body {"Message", "Code", "Type": "error"}; those are answers, not outages.

Many pieces go in one CAR (one root per piece, up to `car_max_bytes`): `dag/import` answers one Root event per root,
each checked against the local CID, and one `pin/add` names every root that came through (kubo gives all the pins
of one call the same name: the first and last piece's). A root kubo did not answer, or could not pin, fails that
piece alone.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import requests

from mintprep.base import NOT_JSON, KuboError, RemoteError, loads, scrub
from mintprep.net import json_object
from mintprep.ipfs.backends.base import CidMismatch, PinRequest, UploadResult, Uploaded, check_root
from mintprep.ipfs.backends.http import HttpBackend, spooled_car
from mintprep.ipfs.car import CarReader
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import Block, DagImport
from mintprep.ipfs.gateway import verify_from_car
from mintprep.ipfs.verify import VerifyReport

MAX_PIECES_PER_CAR = 1000  # a bound on one answer's NDJSON and one pin/add's query string


def _kubo_error(response: requests.Response) -> bool:
    """kubo's command errors: HTTP 500 with a JSON {"Message", "Type": "error"}. A plain-text 500 is an outage."""
    if response.status_code != 500:
        return False
    try:
        return isinstance(loads(response.content).get("Message"), str)
    except (*NOT_JSON, AttributeError):
        return False


class KuboBackend(HttpBackend):
    name = "kubo"

    def __init__(self, api_url: str, *, token: str | None = None, car_max_bytes: int = 32 << 20, **http: Any) -> None:
        super().__init__(token=token, **http)
        self.api_url = api_url.rstrip("/")
        self.car_max_bytes = car_max_bytes

    def _call(self, command: str, **kwargs: Any) -> requests.Response:
        """POST /api/v0/<command>; raise KuboError with kubo's message when it answers with an error."""
        response = self._send("POST", f"{self.api_url}/api/v0/{command}", is_answer=_kubo_error, **kwargs)
        if response.status_code == 500:
            raise KuboError(scrub(f"kubo {command}: {loads(response.content)['Message'][:300]}"))
        return response

    def _upload(self, dag: DagImport, name: str) -> str | None:
        [outcome] = self._import_and_pin([(0, dag, name)])
        if not isinstance(outcome, Uploaded):
            raise outcome[1]
        return None

    def _shares(self, count: int) -> Iterator[list[int]]:
        """One share per worker, so every CAR upload runs beside the others; each share is cut into CARs by size."""
        size = min(MAX_PIECES_PER_CAR, max(1, math.ceil(count / self.concurrency)))
        return (list(range(start, min(start + size, count))) for start in range(0, count, size))

    def _upload_share(self, requests: Sequence[PinRequest], share: list[int]) -> list[UploadResult]:
        results: list[UploadResult] = []
        batch: list[tuple[int, DagImport, str]] = []
        batch_bytes = 0
        for index in share:
            dag = requests[index].make_dag()
            if batch and batch_bytes + dag.size > self.car_max_bytes:
                results += self._import_and_pin(batch)
                batch, batch_bytes = [], 0
            batch.append((index, dag, requests[index].name))
            batch_bytes += dag.size
        return results + (self._import_and_pin(batch) if batch else [])

    def _import_and_pin(self, batch: list[tuple[int, DagImport, str]]) -> list[UploadResult]:
        """One CAR holding every DAG of `batch` (a root each), then one pin/add of the roots kubo took."""
        label = batch[0][2] if len(batch) == 1 else f"{batch[0][2]} … {batch[-1][2]}"
        try:
            answered = self._dag_import([dag for _, dag, _ in batch], label)
        except RemoteError as error:
            return [(index, error) for index, _, _ in batch]
        results: list[UploadResult] = []
        imported: list[tuple[int, DagImport, str]] = []
        ours = {dag.root.to_v1() for _, dag, _ in batch}
        strangers = [spelled for cid, (spelled, _) in answered.items() if cid not in ours]
        for index, dag, name in batch:
            spelled, problem = answered.get(dag.root.to_v1(), (None, ""))
            try:
                check_root(dag.root, spelled or (strangers[0] if strangers else None), self.name, name)
            except CidMismatch as mismatch:
                results.append((index, mismatch))
                continue
            if problem:
                results.append((index, RemoteError(f"{name}: kubo could not pin {spelled}: {problem} "
                                                   "(DAG incomplete)")))
            else:
                imported.append((index, dag, name))
        if not imported:
            return results
        try:
            pinned = self._call("pin/add", params=[*(("arg", str(dag.root)) for _, dag, _ in imported),
                                                   ("recursive", "true"), ("name", label)])
            pins = {as_cid(cid).to_v1() for cid in json_object(pinned, "kubo pin/add").get("Pins") or []}
        except (RemoteError, ValueError) as error:
            failed = error if isinstance(error, RemoteError) else RemoteError(f"kubo pin/add: {error}")
            return results + [(index, failed) for index, _, _ in imported]
        for index, dag, name in imported:
            if dag.root.to_v1() in pins:
                results.append(Uploaded(index, dag.root, None))
            else:
                results.append((index, CidMismatch(f"{name}: kubo pin/add did not answer {dag.root}")))
        return results

    def _dag_import(self, dags: list[DagImport], label: str) -> dict[CID, tuple[str, str]]:
        """Upload one CAR of `dags`; kubo's answer as {root (as v1): (root as kubo spelled it, PinErrorMsg)}."""
        with spooled_car(dags, "dag.car") as multipart:
            response = self._call("dag/import", params={"pin-roots": "true"}, files=multipart)
        answered: dict[CID, tuple[str, str]] = {}
        for line in filter(str.strip, response.text.splitlines()):
            try:
                root = loads(line).get("Root")
            except (*NOT_JSON, AttributeError):
                raise RemoteError(f"{label}: kubo dag/import answered {line[:200]!r}, not NDJSON events") from None
            if root:
                cid = root.get("Cid", {}).get("/")
                try:
                    answered[as_cid(cid).to_v1()] = (cid, root.get("PinErrorMsg") or "")
                except Exception:  # noqa: BLE001 - an unparsable root names none of ours
                    raise CidMismatch(f"{label}: kubo answered root CID {cid!r}, not a CID") from None
        return answered

    def verify(self, cid: CID | str) -> VerifyReport:
        """One `dag/export` (a CAR of the whole DAG) instead of a `block/get` per block; each block still hashed."""
        root = as_cid(cid)

        def car_blocks() -> Iterable[Block]:
            response = self._call("dag/export", params={"arg": str(root), "timeout": "60s"})
            return CarReader(io.BytesIO(response.content), verify=False)  # read by `send`, capped by its policy

        return verify_from_car(root, car_blocks, self.fetch_block)

    def fetch_block(self, cid: CID | str) -> bytes | None:
        # offline: a block the node lacks is an answer now, not a DHT search; the timeout covers older kubo.
        params = {"arg": str(as_cid(cid)), "offline": "true", "timeout": "10s"}
        try:
            return self._call("block/get", params=params).content
        except KuboError:
            return None

    def unpin(self, cid: CID | str) -> None:
        if self.is_pinned(cid):
            self._call("pin/rm", params={"arg": str(as_cid(cid)), "recursive": "true"})

    def is_pinned(self, cid: CID | str) -> bool:
        return self._pin_ls({"arg": str(as_cid(cid)), "type": "recursive"}, missing_ok=True) != []

    def list_pins(self) -> list[str]:
        return sorted(self._pin_ls({"type": "recursive"}, missing_ok=False))

    def _pin_ls(self, params: dict[str, str], *, missing_ok: bool) -> list[str]:
        try:
            response = self._call("pin/ls", params=params)
        except KuboError as exc:
            if missing_ok and "not pinned" in str(exc):
                return []
            raise
        return list(json_object(response, "kubo pin/ls").get("Keys") or {})

