"""Pinata's v3 API: upload our CAR (`car=true`, public network) so Pinata cannot re-chunk it.

Endpoints: POST {uploads}/v3/files (multipart: file, network, name, car) → {"data": {id, cid, …}};
GET {api}/v3/files/public?cid=&pageToken= → {"data": {files, next_page_token}};
DELETE {api}/v3/files/public/{id}. Content is read back through the configured gateway.
"""

from __future__ import annotations

from typing import Any

from mintprep.net import json_object
from mintprep.ipfs.backends.base import check_root
from mintprep.ipfs.backends.http import GatewayVerifiedBackend, spooled_car
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.unixfs import DagImport

DEFAULT_API = "https://api.pinata.cloud"
DEFAULT_UPLOADS = "https://uploads.pinata.cloud"


class PinataBackend(GatewayVerifiedBackend):
    name = "pinata"

    def __init__(
        self,
        *,
        token: str,
        gateway: str,
        api_url: str | None = None,
        upload_url: str | None = None,
        **http: Any,
    ) -> None:
        super().__init__(gateway=gateway, token=token, **http)
        self.api_url = (api_url or DEFAULT_API).rstrip("/")
        self.upload_url = (upload_url or DEFAULT_UPLOADS).rstrip("/")

    def _upload(self, dag: DagImport, name: str) -> str | None:
        with spooled_car([dag], f"{name}.car") as multipart:
            response = self._send(
                "POST",
                f"{self.upload_url}/v3/files",
                files=multipart,
                data={"network": "public", "name": name, "car": "true"},
            )
        data = json_object(response, "Pinata upload").get("data") or {}
        check_root(dag.root, data.get("cid"), self.name, name)
        return data.get("id")

    def _files(self, **params: str) -> list[dict[str, Any]]:
        files: list[dict[str, Any]] = []
        while True:
            response = self._send("GET", f"{self.api_url}/v3/files/public", params={"limit": "1000", **params})
            page = json_object(response, "Pinata list files").get("data") or {}
            files += page.get("files") or []
            token = page.get("next_page_token")
            if not token or not page.get("files"):
                return files
            params = {**params, "pageToken": token}

    def unpin(self, cid: CID | str) -> None:
        for entry in self._files(cid=str(as_cid(cid))):
            self._send("DELETE", f"{self.api_url}/v3/files/public/{entry['id']}")

    def is_pinned(self, cid: CID | str) -> bool:
        return bool(self._files(cid=str(as_cid(cid))))

    def list_pins(self) -> list[str]:
        return sorted({entry["cid"] for entry in self._files()})
