"""The kubo RPC API (`/api/v0/…`), which IPFS Cluster's proxy (:9095) also speaks.

Upload is `dag/import` of our CAR (kubo cannot re-chunk it), then `pin/add` with the piece's name:
through Cluster's proxy `dag/import` is not cluster-pinned, `pin/add` is. Kubo reports command errors
as HTTP 500 with a JSON body {"Message", "Code", "Type": "error"}; those are answers, not outages.
"""

from __future__ import annotations

import json
from typing import Any

import requests

from mintprep.errors import RemoteError, scrub
from mintprep.http import json_object
from mintprep.ipfs.backends.base import HttpBackend, check_root, spooled_car
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport


class KuboError(RemoteError):
    """kubo answered a command with its JSON error."""


def _kubo_error(response: requests.Response) -> bool:
    """kubo's command errors: HTTP 500 with a JSON {"Message", "Type": "error"}. A plain-text 500 is an outage."""
    if response.status_code != 500:
        return False
    try:
        return isinstance(response.json().get("Message"), str)
    except (ValueError, AttributeError):
        return False


class KuboBackend(HttpBackend):
    name = "kubo"

    def __init__(self, api_url: str, *, token: str | None = None, **http: Any) -> None:
        super().__init__(token=token, **http)
        self.api_url = api_url.rstrip("/")

    def _call(self, command: str, **kwargs: Any) -> requests.Response:
        """POST /api/v0/<command>; raise KuboError with kubo's message when it answers with an error."""
        response = self._send("POST", f"{self.api_url}/api/v0/{command}", is_answer=_kubo_error, **kwargs)
        if response.status_code == 500:
            raise KuboError(scrub(f"kubo {command}: {response.json()['Message'][:300]}"))
        return response

    def _upload(self, dag: DagImport, name: str) -> str | None:
        with spooled_car(dag, "dag.car") as multipart:
            response = self._call("dag/import", params={"pin-roots": "true"}, files=multipart)
        answered = None
        for line in filter(str.strip, response.text.splitlines()):
            try:
                root = json.loads(line).get("Root")
            except (ValueError, AttributeError):
                raise RemoteError(f"{name}: kubo dag/import answered {line[:200]!r}, not NDJSON events") from None
            if root:
                answered = root.get("Cid", {}).get("/")
                if root.get("PinErrorMsg"):
                    raise RemoteError(f"{name}: kubo could not pin {answered}: {root['PinErrorMsg']} (DAG incomplete)")
        check_root(dag.root, answered, self.name, name)
        pinned = self._call("pin/add", params={"arg": str(dag.root), "recursive": "true", "name": name})
        check_root(dag.root, (json_object(pinned, "kubo pin/add").get("Pins") or [None])[0], self.name, name)
        return None

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

