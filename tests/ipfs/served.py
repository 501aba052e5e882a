"""The service stand-ins of tests/ipfs/fakes.py in a process of their own, for benchmarks: their HTTP parsing
does not compete with the client for one interpreter lock, so a measured wall is the client's.

    python -m tests.ipfs.served KIND STORE_DIR [DELAY_S]     KIND: kubo | psa | pinata

Prints {"url", "gateway"} on its first line, then, when stdin closes, {"requests", "max_in_flight", "by_kind",
"busy_s", "cpu_s"} and exits. The gateway (mintprep's gateway app) serves what the service holds, for read-back;
it takes the same delay per request as the service, as a remote gateway's round trip does, and keeps connections
alive as public gateways do; its requests are counted with the service's (`by_kind` names them "GET /ipfs"). `busy_s` is the sum of every request's time in the server, so busy_s / wall is
the mean number of requests in flight; `cpu_s` the process's own CPU time. The service holds the blocks it
takes in memory: a remote service's storage is inside its round trip, which the delay stands for, and a file write
and `os.sync` per upload here would time this machine's disk (shared with every other process), not the client.
Binds 127.0.0.1 only.
"""

from __future__ import annotations

import json
import resource
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.gateway import make_gateway_app
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import Block
from tests.ipfs.fakes import FakeKubo, FakePinata, FakePsa, Script, running

TOKEN = "bench-token"


class HeldStore(BlockStore):
    """The service's blocks: what it takes is held in memory, what was there before (PSA's network) read from disk."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.held: dict[str, bytes] = {}

    def put_many(self, blocks: Iterable[Block]) -> int:
        before = len(self.held)
        self.held.update((block.cid.multihash_key, block.data) for block in blocks)
        return len(self.held) - before

    def get(self, cid: CID | str) -> bytes:
        held = self.held.get(as_cid(cid).multihash_key)
        return held if held is not None else super().get(cid)

    def has(self, cid: CID | str) -> bool:
        return as_cid(cid).multihash_key in self.held or super().has(cid)


@dataclass
class KeptAliveGateway:
    """mintprep's gateway app answering through the stand-ins' handler: the same round trip and counts as the
    service, and connections kept alive as a public gateway keeps them (the app's own server closes each one)."""

    store: BlockStore
    script: Script

    def __post_init__(self) -> None:
        self.app = make_gateway_app(self.store)

    def answer(self, method: str, path: str, query: dict[str, Any], headers: Any, body: bytes) -> tuple[int, bytes]:
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "HTTP_ACCEPT": headers.get("Accept", ""),
                   "QUERY_STRING": urlencode({key: value for key, value in query.items() if key != "arg*"})}
        status: list[str] = []
        answered = b"".join(self.app(environ, lambda line, _headers: status.append(line)))
        return int(status[0].split()[0]), answered


def request_kind(request: str) -> str:
    """"POST /pins", "GET /pins/{id}", "POST /api/v0/dag/import", "GET /ipfs" …: a request without its arguments."""
    method, _, path = request.partition(" ")
    path = path.split("?")[0]
    if path.startswith("/ipfs"):
        return "GET /ipfs"
    if path.startswith("/pins/"):
        return f"{method} /pins/{{id}}"
    return f"{method} {path}"


def main(kind: str, folder: str, delay_s: str = "0.1") -> None:
    store, script = HeldStore(Path(folder)), Script(delay_s=float(delay_s))
    fake = {"kubo": lambda: FakeKubo(store, script), "psa": lambda: FakePsa(TOKEN, script, polls_until_pinned=1),
            "pinata": lambda: FakePinata(TOKEN, store, script)}[kind]()
    with running(fake) as url, running(KeptAliveGateway(store, script)) as gateway:
        print(json.dumps({"url": url, "gateway": gateway}), flush=True)
        sys.stdin.read()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        print(json.dumps({"requests": len(script.requests), "max_in_flight": script.max_in_flight,
                          "by_kind": dict(Counter(map(request_kind, script.requests))),
                          "busy_s": round(script.busy_s, 2),
                          "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
