"""The IPFS Pinning Service API v1 (Pinata /psa, Filebase, 4EVERLAND, ipfs-cluster pinsvcapi).

PSA pins by CID only: the service fetches the blocks over bitswap, so the content must already be
reachable (pinned on a kubo node that announces it, or another backend). Its status is advisory:
"pinned" is believed only after the configured gateway serves every block intact.

Pieces go ten at a time (GET /pins takes at most 10 CIDs, spec: https://ipfs.github.io/pinning-services-api-spec/):
one GET /pins?cid=… asks which of the ten the service already has (a rerun after a kill does not pin twice), one
POST /pins each for the others (the API pins one CID per request), then one GET /pins?cid=… per look at the ten
requests' statuses, the first `FIRST_POLL_S` after the POSTs and at doubling waits after that, without holding a
worker between looks. A piece still not `pinned` `pin_timeout` seconds after its POST fails alone, as does one the
service reports `failed`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from mintprep.base import RemoteError
from mintprep.net import json_object
from mintprep.ipfs.backends.base import (
    FIRST_POLL_S, LONGEST_POLL_S, PinRequest, UploadResult, Uploaded, Waiting, check_root)
from mintprep.ipfs.backends.http import GatewayVerifiedBackend
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport

ACTIVE = "queued,pinning,pinned"
CIDS_PER_LIST = 10  # the spec's maxItems for GET /pins?cid=


@dataclass(frozen=True)
class _Requested:
    index: int
    root: CID
    name: str
    request_id: str


@dataclass(frozen=True)
class _Watch:
    pieces: tuple[_Requested, ...]
    deadline: float
    delay: float  # the wait before the next look


class PsaBackend(GatewayVerifiedBackend):
    name = "psa"

    def __init__(self, api_url: str, *, token: str, gateway: str, pin_timeout: float = 600.0, **http: Any) -> None:
        super().__init__(gateway=gateway, token=token, **http)
        self.api_url = api_url.rstrip("/")
        self.pin_timeout = pin_timeout

    def _pins(self, **params: str) -> list[dict[str, Any]]:
        """GET /pins, following `before=` pagination until `count` results are collected."""
        results: list[dict[str, Any]] = []
        while True:
            page = json_object(self._send("GET", f"{self.api_url}/pins", params={"limit": "1000", **params}), "PSA GET /pins")
            batch = page.get("results") or []
            results += batch
            if not batch or len(results) >= int(page.get("count", 0)):
                return results
            params = {**params, "before": min(item["created"] for item in batch)}

    def _shares(self, count: int) -> Iterator[list[int]]:
        return (list(range(start, min(start + CIDS_PER_LIST, count))) for start in range(0, count, CIDS_PER_LIST))

    def _upload(self, dag: DagImport, name: str) -> str | None:  # the interface's; `_upload_share` does the work
        raise NotImplementedError("PSA pins a share of pieces at a time")

    def _upload_share(self, requests: Sequence[PinRequest], share: list[int]) -> list[UploadResult]:
        dags = {index: requests[index].make_dag() for index in share}
        try:
            existing = _by_cid(self._pins(cid=",".join(str(dag.root) for dag in dags.values()), status=ACTIVE))
        except RemoteError as error:
            return [(index, error) for index in share]
        results: list[UploadResult] = []
        taken: list[tuple[_Requested, dict[str, Any]]] = []
        for index, dag in dags.items():
            name = requests[index].name
            try:
                status = existing.get(dag.root.to_v1()) or json_object(
                    self._send("POST", f"{self.api_url}/pins", json={"cid": str(dag.root), "name": name}),
                    "PSA POST /pins")
                check_root(dag.root, status.get("pin", {}).get("cid"), self.name, name)
            except RemoteError as error:
                results.append((index, error))
                continue
            taken.append((_Requested(index, dag.root, name, str(status.get("requestid"))), status))
        return results + self._sorted(taken, time.monotonic() + self.pin_timeout, FIRST_POLL_S)

    def _look_again(self, watch: _Watch) -> list[UploadResult]:
        try:
            listed = self._pins(cid=",".join(str(piece.root) for piece in watch.pieces), status=ACTIVE + ",failed")
        except RemoteError as error:
            return [(piece.index, error) for piece in watch.pieces]
        by_id = {str(status.get("requestid")): status for status in listed}
        gone = {"status": "gone", "info": {"reason": "the service no longer lists this request"}}
        taken = [(piece, by_id.get(piece.request_id, gone)) for piece in watch.pieces]
        return self._sorted(taken, watch.deadline, min(watch.delay * 2, LONGEST_POLL_S))

    def _sorted(self, taken: list[tuple[_Requested, dict[str, Any]]], deadline: float, delay: float) -> list[UploadResult]:
        """Pinned pieces go to read-back; failed, vanished or overdue ones fail; the rest are looked at after `delay`."""
        results: list[UploadResult] = []
        waiting: list[_Requested] = []
        overdue = time.monotonic() > deadline
        for piece, status in taken:
            state = status.get("status")
            if state == "pinned":
                results.append(Uploaded(piece.index, piece.root, piece.request_id))
            elif state in ("failed", "gone"):
                results.append((piece.index, RemoteError(
                    f"{piece.name}: the pinning service reports request {piece.request_id} {state}: {status.get('info')}")))
            elif overdue:
                results.append((piece.index, RemoteError(
                    f"{piece.name}: still {state!r} after {self.pin_timeout:g}s (ipfs.pin_timeout_s; request "
                    f"{piece.request_id})")))
            else:
                waiting.append(piece)
        if waiting:
            # the last look comes at the deadline, not up to a whole wait after it
            results.append(Waiting(min(time.monotonic() + delay, deadline), _Watch(tuple(waiting), deadline, delay)))
        return results

    def unpin(self, cid: CID | str) -> None:
        for pin in self._pins(cid=str(as_cid(cid)), status=ACTIVE + ",failed"):
            self._send("DELETE", f"{self.api_url}/pins/{pin['requestid']}")

    def is_pinned(self, cid: CID | str) -> bool:
        return bool(self._pins(cid=str(as_cid(cid)), status="pinned"))

    def list_pins(self) -> list[str]:
        return sorted({pin["pin"]["cid"] for pin in self._pins(status="pinned")})


def _by_cid(statuses: list[dict[str, Any]]) -> dict[CID, dict[str, Any]]:
    """The service's pins by CID (as v1), a `pinned` one preferred over one still on its way."""
    found: dict[CID, dict[str, Any]] = {}
    for status in statuses:
        try:
            cid = as_cid(str(status.get("pin", {}).get("cid"))).to_v1()
        except Exception:  # noqa: BLE001 - a pin we cannot read names none of ours
            continue
        if cid not in found or status.get("status") == "pinned":
            found[cid] = status
    return found
