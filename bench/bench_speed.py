"""Where creators wait, as ratios measured side by side in one run (`python bench/bench_speed.py [--quick]`):

1. no-op rerun: `mintprep run` with nothing to do / `mintprep status`, both as fresh processes, on a collection
   whose generator is a diffusers folder of several hundred MB (a tiny pipeline whose UNet is widened to
   `--unet-mib` of fp32 weights, random, saved with save_pretrained);          goal <= 1.5
2. start-up: `mintprep --help` / `python -c "import typer, rich"`;               goal <= 5
3. pinning 1,000 small pieces to a local server following the kubo RPC (tests/ipfs/fakes.py) that takes 100 ms
   per request: wall / (1000 x 0.1 s / ipfs.pin_concurrency);                   goal <= 1.3
   (the same against the Pinata fake, one CAR per piece, read back through a local gateway); the servers run in
   a process of their own, so their parsing does not compete for the benchmark's interpreter lock
4. generation throughput, CPU tiny model, 8 pieces: batch_size 4 / batch_size 1.
Walls are medians of `--repeats` runs. One JSON object per measure on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}


def wall(command: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=ENV)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mintprep(*args: str) -> list[str]:
    return [sys.executable, "-m", "mintprep", *args]


def big_folder(folder: Path, unet_mib: int) -> int:
    """The tiny pipeline with a UNet widened to about `unet_mib` MiB of fp32 weights, saved; its size in bytes."""
    from diffusers import UNet2DConditionModel

    from mintprep.generate.tiny import build_tiny_pipeline

    pipe = build_tiny_pipeline()
    width = 32
    while True:  # the parameter count grows with the square of the width
        unet = UNet2DConditionModel(sample_size=8, in_channels=4, out_channels=4, block_out_channels=(width, 2 * width),
                                    layers_per_block=1, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
                                    up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=16,
                                    norm_num_groups=4, attention_head_dim=4)
        if sum(p.numel() for p in unet.parameters()) * 4 >= unet_mib << 20:
            break
        width *= 2 if width < 256 else 1.25
        width = int(width) // 8 * 8
    pipe.unet = unet
    pipe.save_pretrained(folder)
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def noop_rerun(work: Path, unet_mib: int, repeats: int) -> dict:
    from tests.conftest import write_collection

    size = big_folder(work / "model", unet_mib)
    collection = write_collection(work / "c", size=2, generator={
        "kind": "diffusers", "model": str(work / "model"), "steps": 2, "width": 64, "height": 64, "upscale": 1,
        "precision": "fp32", "fallback": [], "device": "cpu"})
    start = time.perf_counter()
    subprocess.run(mintprep("run", str(collection), "--json"), check=True, capture_output=True, env=ENV)
    first = time.perf_counter() - start
    rerun = wall(mintprep("run", str(collection), "--json"), repeats)
    status = wall(mintprep("status", str(collection), "--json"), repeats)
    return {"measure": "no-op rerun / status", "model_mib": round(size / 2**20), "first_run_s": round(first, 2),
            "rerun_s": round(rerun, 3), "status_s": round(status, 3), "ratio": round(rerun / status, 2), "goal": 1.5}


def startup(repeats: int) -> dict:
    help_s = wall(mintprep("--help"), repeats)
    base = wall([sys.executable, "-c", "import typer, rich"], repeats)
    return {"measure": "--help / import typer, rich", "help_s": round(help_s, 3), "typer_rich_s": round(base, 3),
            "ratio": round(help_s / base, 2), "goal": 5}


def serve(kind: str, folder: str) -> None:
    """`--serve KIND FOLDER`: the fake service (and, for Pinata, a gateway over what it holds) in this process,
    so its parsing does not share the benchmark's interpreter lock; prints its URLs, then its counts when stdin
    closes."""
    from mintprep.ipfs.gateway import serve_gateway
    from mintprep.ipfs.store import BlockStore
    from tests.ipfs.fakes import FakeKubo, FakePinata, Script, running

    store, script = BlockStore(Path(folder)), Script(delay_s=0.1)
    fake = FakeKubo(store, script) if kind == "kubo" else FakePinata("bench-token", store, script)
    gateway = serve_gateway(store)
    with running(fake) as url:
        print(json.dumps({"url": url, "gateway": f"http://127.0.0.1:{gateway.server_address[1]}"}), flush=True)
        sys.stdin.read()
        print(json.dumps({"requests": len(script.requests), "max_in_flight": script.max_in_flight}), flush=True)
    gateway.shutdown()


def pinning(work: Path, kind: str, pieces: int, concurrency: int) -> dict:
    from mintprep.base.hashing import sha256_hex
    from mintprep.ipfs.backends import make_backend
    from mintprep.ipfs.settings import IpfsSettings
    from mintprep.ipfs.unixfs import get_profile, import_bytes
    from mintprep.state.ledger import Ledger
    from mintprep.stages.pin import PinItem, pin_pieces

    profile = get_profile("kubo-cidv1")
    payloads = [f"{kind} piece {i} ".encode() * 40 for i in range(pieces)]
    items = [PinItem(sha256_hex(d), lambda d=d: import_bytes(d, profile), "image", f"B-{i}.png")
             for i, d in enumerate(payloads)]
    os.environ["BENCH_PINATA_JWT"] = "bench-token"
    server = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(work / f"{kind}-service")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        urls = json.loads(server.stdout.readline())
        settings = (IpfsSettings(backend="kubo", api_url=urls["url"], pin_concurrency=concurrency) if kind == "kubo"
                    else IpfsSettings(backend="pinata", api_url=urls["url"], upload_url=urls["url"],
                                      token_env="BENCH_PINATA_JWT", gateway=urls["gateway"],
                                      pin_concurrency=concurrency))
        with Ledger.open(work / f"{kind}-state") as ledger:
            backend = make_backend(settings, work / f"{kind}-state")
            start = time.perf_counter()
            pin_pieces(ledger, backend, profile, items)
            elapsed = time.perf_counter() - start
        counts, _ = server.communicate("", timeout=60)
        counts = json.loads(counts.splitlines()[-1])
    finally:
        server.kill()
    ideal = pieces * 0.1 / concurrency
    return {"measure": f"pin {pieces} pieces at 100 ms/request ({kind})", "concurrency": concurrency,
            "wall_s": round(elapsed, 2), "ideal_s": round(ideal, 2), "ratio": round(elapsed / ideal, 2), **counts,
            "goal": 1.3}


def batching(pieces: int, steps: int) -> dict:
    from mintprep.executors import LocalExecutor
    from mintprep.generate import GenerationRequest, GeneratorSettings

    rates = {}
    for batch in (1, 4):
        settings = GeneratorSettings(kind="tiny", steps=steps, upscale=1, batch_size=batch, device="cpu")
        executor = LocalExecutor(settings)
        requests = [GenerationRequest(token_id=t, prompt=f"a tulip, study {t}", collection_seed=7, settings=settings)
                    for t in range(4, 4 + pieces)]
        list(executor.run(requests[:batch]))  # load and warm up
        start = time.perf_counter()
        results = list(executor.run(requests))
        rates[batch] = 60 * len(results) / (time.perf_counter() - start)
    return {"measure": "generation batch 4 / batch 1 (CPU tiny)", "pieces": pieces, "steps": steps,
            "batch1_per_min": round(rates[1], 1), "batch4_per_min": round(rates[4], 1),
            "ratio": round(rates[4] / rates[1], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--unet-mib", type=int, default=400)
    parser.add_argument("--pieces", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--quick", action="store_true", help="a smoke run: small model, few pieces, 1 repeat")
    parser.add_argument("--only", nargs="+", choices=["rerun", "startup", "pin", "batch"],
                        default=["rerun", "startup", "pin", "batch"])
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return
    if args.quick:
        args.repeats, args.unet_mib, args.pieces = 1, 8, 64
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        measures = {"rerun": lambda: [noop_rerun(work, args.unet_mib, args.repeats)],
                    "startup": lambda: [startup(args.repeats)],
                    "pin": lambda: [pinning(work, kind, args.pieces, args.concurrency) for kind in ("kubo", "pinata")],
                    "batch": lambda: [batching(8, 4)]}
        rows = [row for name in args.only for row in measures[name]()]
    print(f"{os.cpu_count()} CPUs, torch {torch.__version__}, {torch.get_num_threads()} threads, load average "
          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
