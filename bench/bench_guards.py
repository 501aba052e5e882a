"""Each pixel guard's cost per image on real-size art, as a ratio to decoding the same PNG.

    python bench/bench_guards.py [--side 384] [--pieces 40] [--rounds 5] [--json]

The art is tests/support/real_art.py's layered avatars (30-60 KB PNGs with grain). Per round, every measure runs
over the same pieces one after another (decode floor, the whole verdict, `pixel_metrics`, each metric as it calls
it, mintprep's pHash and tile signature, `imagehash.phash` where installed: the `bench` extra), so a busy neighbour
slows them alike; a figure
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.guards import pixel_metrics as pm  # noqa: E402
from mintprep.guards.image_guards import check_pixels, load_rgb, pixel_metrics  # noqa: E402
from mintprep.guards.near_duplicates import phash, tile_signature  # noqa: E402
from mintprep.guards.settings import GuardSettings  # noqa: E402
from tests.support.real_art import art_png  # noqa: E402


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[0] if Path("/proc/loadavg").exists() else "?"


def decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


@dataclass(frozen=True)
class Piece:
    """One image as the measures take it: its PNG bytes, its RGB array, and what pixel_metrics computes once and
    hands on (its luma, its edge maps)."""

    data: bytes
    rgb: np.ndarray
    luma: np.ndarray
    maps: tuple[np.ndarray, np.ndarray]


def measures(guards: GuardSettings) -> dict[str, Callable[[Piece], object]]:
    """name -> f(piece): what one image costs for that measure (each metric as pixel_metrics calls it: the spreads
    over the whole image and its interior, the dead tiles given the edge maps)."""
    def inset(piece: Piece) -> int:
        return pm.border_width(piece.rgb.shape, guards.border_share)

    found: dict[str, Callable[[Piece], object]] = {
        "decode floor (Pillow)": lambda p: decode(p.data),
        "load_rgb (mintprep's decode)": lambda p: load_rgb(p.data),
        "whole verdict (check_pixels)": lambda p: check_pixels(p.rgb, guards),
        "pixel_metrics (all 18 metrics)": lambda p: pixel_metrics(p.rgb, guards),
        "luma + histogram": lambda p: pm.luma_histogram(pm.luma_of(p.rgb)),
        "spreads (luma std x2, channel stds)": lambda p: (pm.luma_std(p.luma), pm.luma_std(p.luma, inset(p)),
                                                          pm.channel_stds(p.rgb, inset(p))),
        "edge maps + shares": lambda p: [pm.edge_share(maps, guards.edge_step, at)
                                         for maps in [pm.edge_maps(p.rgb)] for at in (0, inset(p))],
        "feature shares": lambda p: (pm.feature_share(p.luma > guards.black_level),
                                     pm.feature_share(p.luma < guards.white_level)),
        "dead tiles (edge maps given)": lambda p: pm.dead_tile_share(p.rgb, p.luma, p.maps),
        "neighbour corr": lambda p: pm.neighbour_corr(p.luma),
        "coarse corr": lambda p: pm.coarse_corr(p.luma),
        "hf ratio (FFT)": lambda p: pm.hf_ratio(p.luma),
        "dark run": lambda p: pm.dark_run(p.luma, guards.black_level),
        "banded (staircases)": lambda p: pm.banded_share(p.rgb),
        "pHash (mintprep)": lambda p: phash(p.rgb),
        "tile signature": lambda p: tile_signature(p.rgb),
    }
    try:
        import imagehash
    except ImportError:
        return found
    found["imagehash.phash (peer, from decoded image)"] = lambda p: imagehash.phash(Image.fromarray(p.rgb))
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
    images = [Piece(data, rgb, pm.luma_of(rgb), pm.edge_maps(rgb)) for data in pngs for rgb in [load_rgb(data)]]
    chosen = measures(guards)
    times: dict[str, list[float]] = {name: [] for name in chosen}
    load_before = load()
    for _ in range(args.rounds):
        for name, measure in chosen.items():
            start = time.process_time()
            for piece in images:
                measure(piece)
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
