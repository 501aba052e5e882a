"""Where creators wait, as ratios measured side by side in one run (`python bench/bench_speed.py [--quick]`):

1. no-op rerun: `mintprep run` with nothing to do / `mintprep status`, both as fresh processes, on a collection
   whose generator is a diffusers folder of several hundred MB (a tiny pipeline whose UNet is widened to
   `--unet-mib` of fp32 weights, random, saved with save_pretrained);          goal <= 1.5
2. start-up: `mintprep --help` / `python -c "import typer, rich"`;               goal <= 5
3. generation throughput, CPU tiny model, 8 pieces: batch_size 4 / batch_size 1.
Pinning ratios (kubo, PSA, Pinata at 100 ms per request) are measured by bench/bench_pinning.py.
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
    parser.add_argument("--quick", action="store_true", help="a smoke run: small model, few pieces, 1 repeat")
    parser.add_argument("--only", nargs="+", choices=["rerun", "startup", "batch"], default=["rerun", "startup", "batch"])
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.unet_mib = 1, 8
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        measures = {"rerun": lambda: [noop_rerun(work, args.unet_mib, args.repeats)],
                    "startup": lambda: [startup(args.repeats)],
                    "batch": lambda: [batching(8, 4)]}
        rows = [row for name in args.only for row in measures[name]()]
    print(f"{os.cpu_count()} CPUs, torch {torch.__version__}, {torch.get_num_threads()} threads, load average "
          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
