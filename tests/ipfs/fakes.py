"""Local stand-ins for services that cannot run here, each following its documented HTTP API.

- FakeKubo: kubo RPC (docs.ipfs.tech/reference/kubo/rpc): POST /api/v0/dag/import (multipart CAR,
  NDJSON {"Root": {"Cid": {"/": …}, "PinErrorMsg": …}}, one per root), dag/export, pin/add|rm|ls, block/get; errors as HTTP 500
  with {"Message", "Code", "Type": "error"}; GET answers 405 as kubo does.
- FakePsa: IPFS Pinning Service API v1 (ipfs/pinning-services-api-spec): Bearer auth, GET/POST /pins,
  GET/DELETE /pins/{requestid}, statuses queued → pinning → pinned.
- FakePinata: Pinata v3 (docs.pinata.cloud): POST /v3/files (multipart file + network/name/car),
  GET /v3/files/public?cid=, DELETE /v3/files/public/{id}.
- FakeCluster: IPFS Cluster REST API (ipfscluster.io/documentation/reference/api): Basic or Bearer auth, errors as
  {"code", "message"}; POST /add?format=car with replication-min/max (a one-root CAR, answered [{"name", "cid":
  {"/": …}, "allocations"}]); GET /pins/{cid} → {"cid", "peer_map": {peer id: {"peername", "status", "error"…}}}
  with each allocated peer going pin_queued → pinning → pinned over polls (others `remote`; untracked: `unpinned`);
  GET /pins?filter=pinned streamed one object per line; DELETE /pins/{cid} (404 when untracked).
Uploaded blocks go into a real BlockStore that mintprep's own gateway serves, so verification reads
back what the service holds. Each fake can be told to answer 429/5xx first, or to lie about the root, to
take `delay_s` over every request (it counts the most requests it had in flight at once), to read request bodies
at `bytes_per_s` (a slow uplink; it notes the slowest), and to refuse
chosen pieces (kubo: their root's PinErrorMsg; Pinata: HTTP 400 to their upload).
The CAR parsing here is written independently of mintprep.ipfs.car so it checks the writer.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import hashlib
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

from mintprep.ipfs.car import car_bytes
from mintprep.ipfs.cid import CID
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import Block
from mintprep.ipfs.verify import verify_dag
from tests.support.servers import http_server


def parse_car(car: bytes) -> tuple[list[CID], list[Block]]:
    """A deliberately separate CAR parser: varint-framed sections, each block's sha256 checked; every root."""

    def varint(pos: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = car[pos]
            value |= (byte & 0x7F) << shift
            pos += 1
            if byte < 0x80:
                return value, pos
            shift += 7

    header_length, pos = varint(0)
    header = car[pos : pos + header_length]
    roots, marker = [], header.find(b"\xd8\x2a")
    while marker >= 0:  # tag 42, a one-byte byte-string head (0x58, length), then the 0x00 prefix and the CID
        root_length = header[marker + 3] - 1
        roots.append(CID.from_bytes(header[marker + 5 : marker + 5 + root_length]))
        marker = header.find(b"\xd8\x2a", marker + 5 + root_length)
    pos += header_length
    blocks = []
    while pos < len(car):
        length, pos = varint(pos)
        section = car[pos : pos + length]
        cid_length = 34 if section[0] == 0x12 else 36
        cid, data = CID.from_bytes(section[:cid_length]), section[cid_length:]
        if hashlib.sha256(data).digest() != cid.digest:
            raise ValueError(f"uploaded block {cid} does not match its hash")
        blocks.append(Block(cid, data))
        pos += length
    return roots, blocks


def multipart_parts(content_type: str, body: bytes) -> dict[str, bytes]:
    message = email.message_from_bytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body, policy=email.policy.HTTP
    )
    return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True) for part in message.iter_parts()}


@dataclass
class Script:
    """Failures to answer before serving normally: (status, headers) per request, in order."""

    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    lie_root: str | None = None  # answer this root instead of the real one
    requests: list[str] = field(default_factory=list)
    delay_s: float = 0.0  # every request takes this long, as a remote service's round trip does
    bytes_per_s: float = 0.0  # when set, request bodies are read no faster than this: a slow uplink
    slowest_body_s: float = 0.0  # the longest a body took to arrive
    refuse: set[str] = field(default_factory=set)  # roots (kubo) or names (Pinata) whose upload fails
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @contextlib.contextmanager
    def serving(self):
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(self.delay_s)
            yield
        finally:
            with self.lock:
                self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    service: object  # set per server

    def log_message(self, format, *args):  # noqa: A002
        pass

    def _send(self, status: int, body: bytes | dict, headers: dict[str, str] | None = None) -> None:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> bytes:
        length, rate = int(self.headers.get("Content-Length") or 0), self.service.script.bytes_per_s
        if not rate:
            return self.rfile.read(length)
        started, body = time.monotonic(), b""
        while len(body) < length:
            chunk = self.rfile.read(min(4096, length - len(body)))
            if not chunk:
                break
            body += chunk
            time.sleep(max(0.0, started + len(body) / rate - time.monotonic()))
        self.service.script.slowest_body_s = max(self.service.script.slowest_body_s, time.monotonic() - started)
        return body

    def _handle(self) -> None:
        service = self.service
        body = self._body()
        with service.script.serving():
            service.script.requests.append(f"{self.command} {self.path}")
            if service.script.failures:
                status, headers = service.script.failures.pop(0)
                self._send(status, b"try later", headers)
                return
            url = urlparse(self.path)
            every = parse_qs(url.query)
            query = {key: values[0] for key, values in every.items()}
            query["arg*"] = every.get("arg", [])
            status, answer = service.answer(self.command, url.path, query, self.headers, body)
            self._send(status, answer)

    do_GET = do_POST = do_DELETE = _handle


def running(service) -> contextlib.AbstractContextManager[str]:
    return http_server(type("Handler", (_Handler,), {"service": service}))


def _kubo_error(message: str) -> tuple[int, dict]:
    return 500, {"Message": message, "Code": 0, "Type": "error"}


@dataclass
class FakeKubo:
    store: BlockStore
    script: Script = field(default_factory=Script)
    pins: dict[str, str] = field(default_factory=dict)
    serve_corrupted: set[str] = field(default_factory=set)  # block/get flips a byte of these

    def answer(self, method, path, query, headers, body):
        if method != "POST":
            return 405, b"405 - Method Not Allowed"
        command = path.removeprefix("/api/v0/")
        if command == "dag/import":  # one Root event per root of the CAR, as kubo's `dag import` prints
            roots, blocks = parse_car(multipart_parts(headers["Content-Type"], body)["file"])
            self.store.put_many(blocks)
            events = []
            for root in roots:
                answered = self.script.lie_root or str(root)
                complete = verify_dag(root, self.store.get).ok and str(root) not in self.script.refuse
                if query.get("pin-roots", "true") == "true" and complete:
                    with self.script.lock:
                        self.pins.setdefault(answered, "")
                error = "" if complete else f"pinning root {root}: DAG is incomplete"
                events.append(json.dumps({"Root": {"Cid": {"/": answered}, "PinErrorMsg": error}}) + "\n")
            return 200, "".join(events).encode()
        arg = query.get("arg")
        if command == "pin/add":  # every `arg` pinned, all under the one name
            with self.script.lock:
                self.pins.update({cid: query.get("name", "") for cid in query["arg*"]})
            return 200, {"Pins": query["arg*"]}
        if command == "pin/ls":
            if arg is None:
                return 200, {"Keys": {cid: {"Type": "recursive"} for cid in self.pins}}
            if arg not in self.pins:
                return _kubo_error(f"path '{arg}' is not pinned")
            return 200, {"Keys": {arg: {"Type": "recursive"}}}
        if command == "pin/rm":
            if self.pins.pop(arg, None) is None:
                return _kubo_error("not pinned or pinned indirectly")
            return 200, {"Pins": [arg]}
        if command == "dag/export":  # the DAG as a CAR (written by mintprep's writer, checked in test_car.py)
            blocks = [Block(b.cid, bytes([b.data[0] ^ 1]) + b.data[1:] if str(b.cid) in self.serve_corrupted else b.data)
                      for b in self.store.iter_dag(arg, skip_missing=True)]
            return (200, car_bytes([CID.parse(arg)], blocks)) if blocks else _kubo_error(f"block was not found: {arg}")
        if command == "block/get":
            try:
                data = self.store.get(arg)
            except KeyError:
                return _kubo_error(f"block was not found locally (offline): ipld: could not find {arg}")
            return 200, (bytes([data[0] ^ 1]) + data[1:] if arg in self.serve_corrupted and data else data)
        return 404, b"404 page not found"


@dataclass
class FakePsa:
    token: str
    script: Script = field(default_factory=Script)
    statuses: dict[str, dict] = field(default_factory=dict)
    polls_until_pinned: int = 2

    def answer(self, method, path, query, headers, body):
        if headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {"error": {"reason": "UNAUTHORIZED", "details": "missing or wrong token"}}
        if path == "/pins" and method == "POST":
            pin = json.loads(body)
            request_id = uuid.uuid4().hex
            cid = self.script.lie_root or pin["cid"]
            self.statuses[request_id] = {
                "requestid": request_id, "status": "queued", "created": f"2026-01-01T00:00:{len(self.statuses):02d}Z",
                "pin": {"cid": cid, "name": pin.get("name")}, "delegates": ["/dnsaddr/fake/p2p/QmFake"], "info": {},
                "_polls": 0,
            }
            return 202, self._public(self.statuses[request_id])
        if path == "/pins" and method == "GET":
            wanted = set(query.get("status", "pinned").split(","))
            cids = set(query["cid"].split(",")) if "cid" in query else None
            results = [  # a copy: POSTs from other threads add to it meanwhile
                self._public(s) for s in list(self.statuses.values())
                if s["status"] in wanted and (cids is None or s["pin"]["cid"] in cids)
            ]
            return 200, {"count": len(results), "results": results[: int(query.get("limit", 10))]}
        request_id = path.removeprefix("/pins/")
        status = self.statuses.get(request_id)
        if status is None:
            return 404, {"error": {"reason": "NOT_FOUND", "details": request_id}}
        if method == "DELETE":
            del self.statuses[request_id]
            return 202, b""
        status["_polls"] += 1
        if status["_polls"] >= self.polls_until_pinned:
            status["status"] = "pinned"
        elif status["_polls"] >= 1:
            status["status"] = "pinning"
        return 200, self._public(status)

    @staticmethod
    def _public(status: dict) -> dict:
        return {key: value for key, value in status.items() if not key.startswith("_")}


@dataclass
class FakePinata:
    token: str
    store: BlockStore
    script: Script = field(default_factory=Script)
    files: dict[str, dict] = field(default_factory=dict)

    def answer(self, method, path, query, headers, body):
        if headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {"error": "Unauthorized"}
        if method == "POST" and path == "/v3/files":
            parts = multipart_parts(headers["Content-Type"], body)
            if parts.get("car") != b"true" or parts.get("network") != b"public":
                return 400, {"error": "expected car=true on the public network"}
            if parts["name"].decode() in self.script.refuse:
                return 400, {"error": "file rejected"}
            [root], blocks = parse_car(parts["file"])
            self.store.put_many(blocks)
            file_id = uuid.uuid4().hex
            entry = {"id": file_id, "name": parts["name"].decode(), "cid": self.script.lie_root or str(root), "size": len(body)}
            with self.script.lock:
                self.files[file_id] = entry
            return 200, {"data": {**entry, "is_duplicate": False, "number_of_files": 1, "mime_type": "application/vnd.ipld.car"}}
        if method == "GET" and path == "/v3/files/public":
            found = [f for f in self.files.values() if "cid" not in query or f["cid"] == query["cid"]]
            return 200, {"data": {"files": found, "next_page_token": None}}
        if method == "DELETE" and path.startswith("/v3/files/public/"):
            self.files.pop(path.rsplit("/", 1)[1], None)
            return 200, {"data": None}
        return 404, {"error": "not found"}


@dataclass
class FakeCluster:
    store: BlockStore
    authorization: str  # the one Authorization header value the cluster accepts
    peers: tuple[str, ...] = ("peer-a", "peer-b", "peer-c")
    polls_until_pinned: int = 2  # GET /pins/{cid} answers an allocated peer pinned from this poll on
    stuck: set[str] = field(default_factory=set)  # peers that never report pinned (stay `pinning`)
    failing: dict[str, str] = field(default_factory=dict)  # peer -> the pin_error it reports
    echo_credentials: bool = False  # a careless server quotes the Authorization header in its errors
    script: Script = field(default_factory=Script)
    pins: dict[str, dict] = field(default_factory=dict)  # cid -> {"name", "allocations", "min", "max", "polls"}

    def answer(self, method, path, query, headers, body):
        sent = headers.get("Authorization") or ""
        if sent != self.authorization:
            told = f"invalid credentials: {sent}" if self.echo_credentials else "invalid credentials"
            return 401, {"code": 401, "message": told}
        if method == "POST" and path == "/add":
            if query.get("format") != "car":
                return 400, {"code": 400, "message": "this stand-in takes format=car only"}
            roots, blocks = parse_car(multipart_parts(headers["Content-Type"], body)["file"])
            if len(roots) != 1:
                return 400, {"code": 400, "message": "the CAR must have exactly one root"}
            self.store.put_many(blocks)
            root = self.script.lie_root or str(roots[0])
            wanted = int(query.get("replication-max", "-1"))
            allocations = list(self.peers if wanted < 0 else self.peers[:wanted])
            with self.script.lock:
                self.pins[root] = {"name": query.get("name", ""), "allocations": allocations,
                                   "min": int(query.get("replication-min", "-1")), "max": wanted, "polls": 0}
            added = {"name": query.get("name", ""), "cid": {"/": root}, "size": len(blocks), "allocations": allocations}
            return 200, [added] if query.get("stream-channels") == "false" else (json.dumps(added) + "\n").encode()
        cid = path.removeprefix("/pins/")
        if method == "GET" and path == "/pins":
            infos = [self._info(c, advance=False) for c in self.pins]
            if query.get("filter") == "pinned":
                infos = [i for i in infos if any(p["status"] == "pinned" for p in i["peer_map"].values())]
            return 200, "".join(json.dumps(i) + "\n" for i in infos).encode()
        if method == "GET":
            return 200, self._info(cid, advance=True)
        if method == "DELETE":
            with self.script.lock:
                pin = self.pins.pop(cid, None)
            if pin is None:
                return 404, {"code": 404, "message": "cid is not part of the global state"}
            return 200, {"cid": {"/": cid}, "name": pin["name"], "allocations": pin["allocations"],
                         "replication_factor_min": pin["min"], "replication_factor_max": pin["max"]}
        return 404, {"code": 404, "message": "not found"}

    def _info(self, cid: str, *, advance: bool) -> dict:
        pin = self.pins.get(cid)
        if pin is not None and advance:
            pin["polls"] += 1
        peer_map = {}
        for peer in self.peers:
            error = ""
            if pin is None:
                status = "unpinned"
            elif peer not in pin["allocations"]:
                status = "remote"
            elif peer in self.failing:
                status, error = "pin_error", self.failing[peer]
            elif peer in self.stuck or pin["polls"] == 0:
                status = "pinning" if pin["polls"] else "pin_queued"
            else:
                status = "pinned" if pin["polls"] >= self.polls_until_pinned else "pinning"
            peer_map[f"12D3KooW{peer}"] = {"peername": peer, "ipfs_peer_id": f"12D3KooWipfs{peer}",
                                           "ipfs_peer_addresses": [], "status": status,
                                           "timestamp": "2026-01-01T00:00:00Z", "error": error,
                                           "attempt_count": 0, "priority_pin": False}
        return {"cid": {"/": cid}, "name": pin["name"] if pin else "", "allocations": pin["allocations"] if pin else [],
                "origins": [], "created": "2026-01-01T00:00:00Z", "metadata": None, "peer_map": peer_map}
