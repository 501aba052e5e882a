"""IPFS Cluster's REST API (ipfscluster.io/documentation/reference/api; default port 9094).

Upload is `POST /add?format=car` of a one-root CAR (Cluster imports the blocks as they are, it cannot re-chunk
them) with `replication-min`/`replication-max`; Cluster answers the added root, checked against ours. Then
`GET /pins/{cid}` is polled until `peer_map` shows `pinned` on `replication_min` peers, within
`replicated_within_s`: at once after the add, then at doubling waits during which the piece holds no worker (the
other pieces' adds and read-backs go on meanwhile); a piece that does not get there fails with every peer's status.
Only then is the content read back through the configured trustless gateway, like every other remote backend.
`DELETE /pins/{cid}` unpins; `GET /pins?filter=pinned` lists. Lists come as a JSON array (older peers) or one JSON
object per line (v1 streams them); the added CID as {"/": cid} (v1) or a plain string.
Login: basic auth (`ipfs.cluster.basic_auth_env`) or a bearer token (`ipfs.token_env`), both registered as secrets.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import requests

from mintprep.base import NOT_JSON, RemoteError, loads, register_secret, scrub
from mintprep.ipfs.backends.base import (
    FIRST_POLL_S, LONGEST_POLL_S, PinRequest, UploadResult, Uploaded, Waiting, check_root)
from mintprep.ipfs.backends.http import GatewayVerifiedBackend, spooled_car
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport


@dataclass(frozen=True)
class _Watch:
    piece: Uploaded
    name: str
    deadline: float
    delay: float  # the wait before the next look


class ClusterBackend(GatewayVerifiedBackend):
    name = "cluster"

    def __init__(
        self,
        api_url: str,
        *,
        gateway: str,
        token: str | None = None,
        basic_auth: tuple[str, str] | None = None,
        replication_min: int = 2,
        replication_max: int = 3,
        replicated_within_s: float = 600.0,
        **http: Any,
    ) -> None:
        super().__init__(gateway=gateway, token=token, **http)
        if basic_auth:  # set as a header (not session.auth) so the HTTP layer registers it as a secret too
            encoded = base64.b64encode(":".join(basic_auth).encode()).decode()
            self._session.headers["Authorization"] = f"Basic {register_secret(encoded)}"
        self.api_url = api_url.rstrip("/")
        self.replication_min = replication_min
        self.replication_max = replication_max
        self.replicated_within_s = replicated_within_s

    def _upload(self, dag: DagImport, name: str) -> str | None:
        params = {"format": "car", "name": name, "replication-min": str(self.replication_min),
                  "replication-max": str(self.replication_max), "stream-channels": "false"}
        with spooled_car([dag], f"{name}.car") as multipart:
            response = self._send("POST", f"{self.api_url}/add", params=params, files=multipart)
        added = _json_items(response, "Cluster POST /add")
        check_root(dag.root, _cid_text(added[-1].get("cid")) if added else None, self.name, name)
        return None  # Cluster names a pin by its CID

    def _upload_share(self, requests: Sequence[PinRequest], share: list[int]) -> list[UploadResult]:
        """Each added piece's status is asked at once (an add often returns replicated), then at doubling waits."""
        results: list[UploadResult] = []
        for item in super()._upload_share(requests, share):
            if isinstance(item, Uploaded):
                deadline = time.monotonic() + self.replicated_within_s
                watch = _Watch(item, requests[item.index].name, deadline, FIRST_POLL_S)
                results += self._look_again(watch)
            else:
                results.append(item)
        return results

    def _look_again(self, watch: _Watch) -> list[UploadResult]:
        """Replicated: on to the read-back. Not yet: looked at again after `delay`, holding no worker meanwhile."""
        piece = watch.piece
        try:
            peers = self._peer_map(piece.root)
        except RemoteError as error:
            return [(piece.index, error)]
        if _count_pinned(peers) >= self.replication_min:
            return [piece]
        now = time.monotonic()
        if now >= watch.deadline:
            return [(piece.index, RemoteError(scrub(
                f"{watch.name}: IPFS Cluster reports {piece.root} pinned on {_count_pinned(peers)} of the "
                f"{self.replication_min} peers required (ipfs.cluster.replication_min) after "
                f"{self.replicated_within_s:g}s (ipfs.cluster.replicated_within_s): {_describe(peers)}")))]
        # the last look comes at the deadline, not up to a whole wait after it
        later = replace(watch, delay=min(watch.delay * 2, LONGEST_POLL_S))
        return [Waiting(min(now + watch.delay, watch.deadline), later)]

    def _peer_map(self, cid: CID | str) -> dict[str, dict[str, Any]]:
        """GET /pins/{cid}: each peer's status of `cid` (an untracked CID: every peer `unpinned`, or a 404)."""
        response = self._send("GET", f"{self.api_url}/pins/{as_cid(cid)}", ok_status=_ok_or_absent)
        if response.status_code == 404:
            return {}
        [info] = _json_items(response, "Cluster GET /pins/{cid}")[:1] or [{}]
        peers = info.get("peer_map")
        return peers if isinstance(peers, dict) else {}

    def unpin(self, cid: CID | str) -> None:
        self._send("DELETE", f"{self.api_url}/pins/{as_cid(cid)}", ok_status=_ok_or_absent)

    def is_pinned(self, cid: CID | str) -> bool:
        return _count_pinned(self._peer_map(cid)) >= self.replication_min

    def list_pins(self) -> list[str]:
        response = self._send("GET", f"{self.api_url}/pins", params={"filter": "pinned"})
        infos = _json_items(response, "Cluster GET /pins")
        return sorted({_cid_text(info.get("cid")) or "" for info in infos
                       if _count_pinned(info.get("peer_map") or {}) >= self.replication_min} - {""})


def _ok_or_absent(status: int) -> bool:
    return status < 400 or status == 404


def _count_pinned(peers: dict[str, Any]) -> int:
    return sum(1 for peer in peers.values() if isinstance(peer, dict) and peer.get("status") == "pinned")


def _describe(peers: dict[str, Any]) -> str:
    if not peers:
        return "no peer reports it"
    shown = []
    for peer_id, peer in sorted(peers.items()):
        peer = peer if isinstance(peer, dict) else {}
        error = f" ({str(peer['error'])[:200]})" if peer.get("error") else ""
        shown.append(f"{peer.get('peername') or peer_id}: {peer.get('status')}{error}")
    return "; ".join(shown)


def _cid_text(value: object) -> str | None:
    """Cluster v1 writes a CID as {"/": "bafy…"}; older peers as the bare string."""
    if isinstance(value, dict):
        value = value.get("/")
    return value if isinstance(value, str) else None


def _json_items(response: requests.Response, what: str) -> list[dict[str, Any]]:
    """The objects of an answer that is one JSON object, a JSON array of them, or one object per line."""
    text = response.text.strip()
    try:
        body = loads(text) if text else []
    except NOT_JSON:
        try:
            body = [loads(line) for line in text.splitlines() if line.strip()]
        except NOT_JSON:
            raise RemoteError(scrub(f"{what}: expected JSON, got {text[:200]!r}")) from None
    items = body if isinstance(body, list) else [body]
    if not all(isinstance(item, dict) for item in items):
        raise RemoteError(scrub(f"{what}: expected JSON objects, got {text[:200]!r}"))
    return items
