"""The service stand-ins of tests/ipfs/fakes.py in a process of their own, for benchmarks: their HTTP parsing
does not compete with the client for one interpreter lock, so a measured wall is the client's.

    python -m tests.ipfs.served KIND STORE_DIR [DELAY_S]     KIND: kubo | psa | pinata

Prints {"url", "gateway"} on its first line (the gateway serves what the service holds, for read-back), then,
when stdin closes, {"requests", "max_in_flight"} and exits. Binds 127.0.0.1 only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.store import BlockStore
from tests.ipfs.fakes import FakeKubo, FakePinata, FakePsa, Script, running

TOKEN = "bench-token"


def main(kind: str, folder: str, delay_s: str = "0.1") -> None:
    store, script = BlockStore(Path(folder)), Script(delay_s=float(delay_s))
    fake = {"kubo": lambda: FakeKubo(store, script), "psa": lambda: FakePsa(TOKEN, script, polls_until_pinned=1),
            "pinata": lambda: FakePinata(TOKEN, store, script)}[kind]()
    gateway = serve_gateway(store)
    try:
        with running(fake) as url:
            print(json.dumps({"url": url, "gateway": f"http://127.0.0.1:{gateway.server_address[1]}"}), flush=True)
            sys.stdin.read()
            print(json.dumps({"requests": len(script.requests), "max_in_flight": script.max_in_flight}), flush=True)
    finally:
        gateway.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:])
