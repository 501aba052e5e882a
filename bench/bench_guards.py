"""Each pixel guard's cost per image on real-size art, as a ratio to decoding the same PNG.

    python bench/bench_guards.py [--side 384] [--pieces 40] [--rounds 5] [--json]

The art is tests/support/real_art.py's layered avatars (30-60 KB PNGs with grain). Per round, every measure runs
over the same pieces one after another (decode floor, each metric, the whole verdict, mintprep's pHash and tile
signature, `imagehash.phash` where installed: the `bench` extra), so a busy neighbour slows them alike; a figure
is the median over the rounds of process CPU time per image, and the ratio is to the decode floor of the same
round. The decode floor is Pillow opening the PNG and converting it to an RGB array, what every reader must pay.
The load average before and after is printed with the figures.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.guards import pixel_metrics as pm  # noqa: E402
from mintprep.guards.image_guards import check_pixels, load_rgb  # noqa: E402
from mintprep.guards.near_duplicates import phash, tile_signature  # noqa: E402
from mintprep.guards.settings import GuardSettings  # noqa: E402
from tests.support.real_art import art_png  # noqa: E402


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[0] if Path("/proc/loadavg").exists() else "?"


def decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


def measures(guards: GuardSettings) -> dict[str, Callable[[bytes, np.ndarray, np.ndarray], object]]:
    """name -> f(png bytes, rgb, luma): what one image costs for that measure."""
    found = {
        "decode floor (Pillow)": lambda data, rgb, luma: decode(data),
        "load_rgb (mintprep's decode)": lambda data, rgb, luma: load_rgb(data),
        "whole verdict (check_pixels)": lambda data, rgb, luma: check_pixels(rgb, guards),
        "luma + histogram": lambda data, rgb, luma: pm.luma_histogram(pm.luma_of(rgb)),
        "spread": lambda data, rgb, luma: pm.spread(rgb, luma),
        "edge maps + shares": lambda data, rgb, luma: pm.edge_share(pm.edge_maps(rgb), guards.edge_step),
        "feature shares": lambda data, rgb, luma: pm.feature_share(luma > guards.black_level),
        "dead tiles": lambda data, rgb, luma: pm.dead_tile_share(rgb, luma),
        "neighbour corr": lambda data, rgb, luma: pm.neighbour_corr(luma),
        "coarse corr": lambda data, rgb, luma: pm.coarse_corr(luma),
        "hf ratio (FFT)": lambda data, rgb, luma: pm.hf_ratio(luma),
        "dark run": lambda data, rgb, luma: pm.dark_run(luma, guards.black_level),
        "banded (staircases)": lambda data, rgb, luma: pm.banded_share(rgb),
        "pHash (mintprep)": lambda data, rgb, luma: phash(rgb),
        "tile signature": lambda data, rgb, luma: tile_signature(rgb),
    }
    try:
        import imagehash
    except ImportError:
        return found
    found["imagehash.phash (peer, from decoded image)"] = lambda data, rgb, luma: imagehash.phash(
        Image.fromarray(rgb))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", type=int, default=384)
    parser.add_argument("--pieces", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    guards = GuardSettings()
    pngs = [art_png(token_id, args.side) for token_id in range(1, args.pieces + 1)]
    images = [(data, rgb, pm.luma_of(rgb)) for data in pngs for rgb in [load_rgb(data)]]
    chosen = measures(guards)
    times: dict[str, list[float]] = {name: [] for name in chosen}
    load_before = load()
    for _ in range(args.rounds):
        for name, measure in chosen.items():
            start = time.process_time()
            for data, rgb, luma in images:
                measure(data, rgb, luma)
            times[name].append((time.process_time() - start) / len(images))
    floor_name = "decode floor (Pillow)"
    ratios = {name: statistics.median(t / f for t, f in zip(values, times[floor_name]))
              for name, values in times.items()}
    report = {"side": args.side, "pieces": args.pieces, "rounds": args.rounds,
              "png_bytes_mean": round(sum(map(len, pngs)) / len(pngs)), "load_before": load_before,
              "load_after": load(),
              "ms_per_image": {name: round(statistics.median(values) * 1e3, 3) for name, values in times.items()},
              "ratio_to_decode": {name: round(ratio, 2) for name, ratio in ratios.items()}}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.pieces} pieces {args.side}x{args.side}, mean PNG {report['png_bytes_mean']:,} B, "
          f"median of {args.rounds} rounds (process CPU), load {load_before} -> {report['load_after']}")
    print("| measure | ms / image | / decode floor |\n|---|---|---|")
    for name in chosen:
        print(f"| {name} | {report['ms_per_image'][name]:.2f} | {report['ratio_to_decode'][name]:.2f} |")


if __name__ == "__main__":
    main()
