"""Pinning 1,000 pieces to the kubo, PSA and Pinata stand-ins at 100 ms per request, side by side in one run.

    python bench/bench_pinning.py [--pieces 1000] [--concurrency 16] [--rtt 0.1] [--only kubo psa pinata]

Each stand-in (tests/ipfs/fakes.py, following its service's documented API) runs in a process of its own
(`python -m tests.ipfs.served`), so its HTTP parsing does not share the client's interpreter lock; every request to
it, and to the gateway that PSA and Pinata pins are read back through, takes `--rtt` seconds. The client is
mintprep's own `pin_pieces` with `ipfs.pin_concurrency` = `--concurrency`, every pin verified before it is recorded.

ideal = the fewest requests the service's protocol needs for N pieces x RTT / requests in flight, where the fewest
requests are (read-back is one request per piece on every service: kubo's dag/export and a trustless gateway's
?format=car both take one root):
  kubo    N read-backs + 2 per CAR (dag/import, pin/add), at least one CAR per request in flight
  PSA     N POSTs (one pin per request by protocol) + N read-backs + N/10 "already pinned?" lists + N/10 status
          lists (GET /pins takes 10 CIDs at most)
  Pinata  N uploads (one file per request by protocol: its v3 API has no multi-file or multi-root upload) +
          N read-backs
`one_trip_ideal` is N x RTT / in flight (one request per piece) for comparison. The breakdown per backend: the
requests each kind of call took, per piece; the mean requests in flight (the server's busy time / wall: waits
between status polls and the client's own CPU show as fewer in flight); the mean time a request spent in the server
(RTT plus the stand-in's own work and scheduling); the client's and the server's CPU seconds, and the client's CPU
per piece by phase (upload, look_again, read_back: the pool threads' own time; rest: the calling thread and the
interpreter's switching between threads). The ratio is the
product of three factors, printed: requests / fewest requests, mean request time / RTT (the stand-in's share), and
concurrency / mean in flight (the client's share). `client_cpu_ms_per_request` is the client CPU of one small
request (kubo's pin/ls, no delay, one thread, `--calls` of them) through mintprep.net.http's `send` on a backend's
session and through a bare requests session, the HTTP layer's own cost. Prints one JSON object with `uptime`'s load
before and after (the machine is shared: figures under load are upper bounds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from mintprep.base.hashing import sha256_hex  # noqa: E402
from mintprep.ipfs.backends import make_backend  # noqa: E402
from mintprep.net.http import pooled_session  # noqa: E402
from mintprep.ipfs.backends.kubo import MAX_PIECES_PER_CAR  # noqa: E402
from mintprep.ipfs.backends.psa import CIDS_PER_LIST  # noqa: E402
from mintprep.ipfs.settings import IpfsSettings  # noqa: E402
from mintprep.ipfs.store import BlockStore  # noqa: E402
from mintprep.ipfs.unixfs import get_profile, import_bytes  # noqa: E402
from mintprep.net.http import send  # noqa: E402
from mintprep.stages.pin import PinItem, pin_pieces  # noqa: E402
from mintprep.state.ledger import Ledger  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
PROFILE = get_profile("kubo-cidv1")


def fewest_requests(kind: str, pieces: int, concurrency: int) -> int:
    if kind == "kubo":
        cars = max(math.ceil(pieces / MAX_PIECES_PER_CAR), min(pieces, concurrency))
        return pieces + 2 * cars
    if kind == "psa":
        return 2 * pieces + 2 * math.ceil(pieces / CIDS_PER_LIST)
    return 2 * pieces


def pinning(work: Path, kind: str, pieces: int, concurrency: int, rtt: float) -> dict[str, object]:
    payloads = [f"{kind} piece {i} ".encode() * 40 for i in range(pieces)]
    items = [PinItem(sha256_hex(d), lambda d=d: import_bytes(d, PROFILE), "image", f"B-{i}.png")
             for i, d in enumerate(payloads)]
    os.environ["BENCH_PIN_TOKEN"] = "bench-token"
    service = work / f"{kind}-service"
    if kind == "psa":  # PSA pins by CID: the blocks must already be reachable (here: in the service's store)
        BlockStore(service).put_many(b for d in payloads for b in import_bytes(d, PROFILE).blocks)
    server = subprocess.Popen([sys.executable, "-m", "tests.ipfs.served", kind, str(service), str(rtt)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    try:
        urls = json.loads(server.stdout.readline())
        settings = dict(backend=kind, api_url=urls["url"], pin_concurrency=concurrency)
        if kind != "kubo":
            settings.update(token_env="BENCH_PIN_TOKEN", gateway=urls["gateway"])
        if kind == "pinata":
            settings.update(upload_url=urls["url"])
        with Ledger.open(work / f"{kind}-state") as ledger:
            backend = make_backend(IpfsSettings(**settings), work / f"{kind}-state")
            phases = time_phases(backend)
            cpu, start = time.process_time(), time.perf_counter()
            outcomes = pin_pieces(ledger, backend, PROFILE, items)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert len(outcomes) == pieces and all(o.newly_pinned for o in outcomes)
        counts = json.loads(server.communicate("", timeout=60)[0].splitlines()[-1])
    finally:
        server.kill()
    fewest = fewest_requests(kind, pieces, concurrency)
    ideal = fewest * rtt / concurrency
    return {"backend": kind, "pieces": pieces, "concurrency": concurrency, "rtt_s": rtt, "wall_s": round(wall, 2),
            "ideal_s": round(ideal, 2), "ratio": round(wall / ideal, 2), "goal": 1.3,
            "one_trip_ideal_s": round(pieces * rtt / concurrency, 2),
            "ratio_to_one_trip": round(wall / (pieces * rtt / concurrency), 2),
            "fewest_requests_per_piece": round(fewest / pieces, 2),
            "requests_per_piece": round(counts["requests"] / pieces, 2),
            "per_piece_by_kind": {name: round(n / pieces, 3) for name, n in sorted(counts["by_kind"].items())},
            "max_in_flight": counts["max_in_flight"], "mean_in_flight": round(counts["busy_s"] / wall, 1),
            "mean_request_s": round(counts["busy_s"] / counts["requests"], 3),
            # ratio = (requests / fewest) x (mean_request_s / rtt) x (concurrency / mean_in_flight)
            "factor_requests": round(counts["requests"] / fewest, 2),
            "factor_service_time": round(counts["busy_s"] / counts["requests"] / rtt, 2),
            "factor_in_flight": round(concurrency * wall / counts["busy_s"], 2),
            "client_cpu_s": round(cpu, 2), "server_cpu_s": counts["cpu_s"],
            "client_cpu_ms_per_piece": {**{phase: round(1000 * spent / pieces, 2) for phase, spent in phases.items()},
                                        "rest": round(1000 * (cpu - sum(phases.values())) / pieces, 2)}}


def time_phases(backend: object) -> dict[str, float]:
    """The CPU seconds the pool's threads spend uploading, looking again at waiting pieces and reading back (each
    phase wrapped on this backend object; time.thread_time, so other threads' work is not counted). `rest` in the
    output is the calling thread (ledger rows, the pool's bookkeeping) and the interpreter's switching."""
    spent = {"upload": 0.0, "look_again": 0.0, "read_back": 0.0}
    lock = threading.Lock()

    def timed(phase: str, method: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object) -> object:
            cpu = time.thread_time()
            try:
                return method(*args)
            finally:
                with lock:
                    spent[phase] += time.thread_time() - cpu
        return run

    for phase, name in (("upload", "_upload_share"), ("look_again", "_look_again"), ("read_back", "_read_back")):
        setattr(backend, name, timed(phase, getattr(backend, name)))
    return spent


def cpu_per_request(work: Path, calls: int) -> dict[str, float]:
    """Client CPU milliseconds per small request: mintprep's `send` against a bare requests session."""
    server = subprocess.Popen([sys.executable, "-m", "tests.ipfs.served", "kubo", str(work / "cpu-service"), "0"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    try:
        url = json.loads(server.stdout.readline())["url"] + "/api/v0/pin/ls"
        ways = {"send": lambda session: send("POST", url, session=session),
                "bare_requests": lambda session: session.post(url).content}
        sessions = {"send": pooled_session(1), "bare_requests": requests.Session()}
        spent = dict.fromkeys(ways, 0.0)
        for _ in range(2):  # interleaved, so a change in the machine's load touches both
            for way, call in ways.items():
                call(sessions[way])  # a kept-alive connection first
                cpu = time.process_time()
                for _ in range(calls // 2):
                    call(sessions[way])
                spent[way] += time.process_time() - cpu
        server.communicate("", timeout=60)
    finally:
        server.kill()
    return {way: round(1000 * cpu / (calls // 2 * 2), 3) for way, cpu in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rtt", type=float, default=0.1)
    parser.add_argument("--only", nargs="+", choices=["kubo", "psa", "pinata"], default=["kubo", "psa", "pinata"])
    parser.add_argument("--calls", type=int, default=1000, help="small requests for client_cpu_ms_per_request")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="mintprep-bench-pin-") as tmp:
        per_request = cpu_per_request(Path(tmp), args.calls)
        rows = [pinning(Path(tmp), kind, args.pieces, args.concurrency, args.rtt) for kind in args.only]
    print(json.dumps({"cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
                      "load_average_after": [round(x, 2) for x in os.getloadavg()],
                      "client_cpu_ms_per_request": per_request, "pinning": rows}, indent=2))


if __name__ == "__main__":
    main()
