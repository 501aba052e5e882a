"""The IPFS Pinning Service API v1 (Pinata /psa, Filebase, 4EVERLAND, ipfs-cluster pinsvcapi).

PSA pins by CID only: the service fetches the blocks over bitswap, so the content must already be
reachable (pinned on a kubo node that announces it, or another backend). Its status is advisory:
"pinned" is believed only after the configured gateway serves every block intact.
"""

from __future__ import annotations

import time
from typing import Any

from mintprep.base.errors import RemoteError
from mintprep.net.http import json_object
from mintprep.ipfs.backends.base import GatewayVerifiedBackend, check_root
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport

ACTIVE = "queued,pinning,pinned"


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

    def _upload(self, dag: DagImport, name: str) -> str | None:
        existing = self._pins(cid=str(dag.root), status=ACTIVE)
        if existing:
            status = existing[0]
        else:
            response = self._send("POST", f"{self.api_url}/pins", json={"cid": str(dag.root), "name": name})
            status = json_object(response, "PSA POST /pins")
        check_root(dag.root, status.get("pin", {}).get("cid"), self.name, name)
        return self._wait_pinned(status, name)

    def _wait_pinned(self, status: dict[str, Any], name: str) -> str:
        request_id = str(status.get("requestid"))
        deadline = time.monotonic() + self.pin_timeout
        delay = 1.0
        while status.get("status") != "pinned":
            if status.get("status") == "failed":
                raise RemoteError(f"{name}: the pinning service reports request {request_id} failed: {status.get('info')}")
            if time.monotonic() > deadline:
                raise RemoteError(f"{name}: still {status.get('status')!r} after {self.pin_timeout:.0f}s (request {request_id})")
            self._sleep(delay)
            delay = min(delay * 2, 30.0)
            status = json_object(self._send("GET", f"{self.api_url}/pins/{request_id}"), "PSA GET /pins/{id}")
        return request_id

    def unpin(self, cid: CID | str) -> None:
        for pin in self._pins(cid=str(as_cid(cid)), status=ACTIVE + ",failed"):
            self._send("DELETE", f"{self.api_url}/pins/{pin['requestid']}")

    def is_pinned(self, cid: CID | str) -> bool:
        return bool(self._pins(cid=str(as_cid(cid)), status="pinned"))

    def list_pins(self) -> list[str]:
        return sorted({pin["pin"]["cid"] for pin in self._pins(status="pinned")})
