"""Each pixel guard's cost per image on real-size art, as a ratio to decoding the same PNG.

    python bench/bench_guards.py [--side 384] [--pieces 40] [--rounds 5] [--json] [--before TREE]

The art is tests/support/real_art.py's layered avatars (30-60 KB PNGs with grain). Per round, every measure runs
over the same pieces one after another (decode floor, the whole verdict, `pixel_metrics`, each metric as it calls
it, mintprep's pHash and tile signature, `imagehash.phash` where installed: the `bench` extra), so a busy neighbour
slows them alike; a figure
is the median over the rounds of process CPU time per image, and the ratio is to the decode floor of the same
round. The decode floor is Pillow opening the PNG and converting it to an RGB array, what every reader must pay.
One round runs untimed first (lazy imports, per-shape caches, a fresh process's first allocations).
The load average before and after is printed with the figures.

With `--before TREE` (a tree holding an older `mintprep/` and `tests/support/`, e.g. `git archive COMMIT mintprep
tests | tar -x -C TREE`), each round runs in two fresh processes, one on this checkout's code and one on that tree's,
alternately, so both meet the same moments of a shared machine; a figure is then the median over the rounds of each
side's, and the table shows them side by side.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
# The tree whose mintprep is measured: this checkout, or the one a `--before` round names (read before the imports).
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else ROOT
sys.path.insert(0, str(TREE))

from mintprep.guards import near_duplicates  # noqa: E402
from mintprep.guards import pixel_metrics as pm  # noqa: E402
from mintprep.guards.image_guards import check_pixels, load_rgb, pixel_metrics  # noqa: E402
from mintprep.guards.judgement import judge_rgb  # noqa: E402
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

    # Both hashes as judge_rgb makes them: one greyscale image and one resampling pass since image_hashes, before it
    # each hash on its own.
    hashes = getattr(near_duplicates, "image_hashes", lambda rgb: (phash(rgb), tile_signature(rgb)))
    found: dict[str, Callable[[Piece], object]] = {
        "decode floor (Pillow)": lambda p: decode(p.data),
        "load_rgb (mintprep's decode)": lambda p: load_rgb(p.data),
        "judgement: verdict + both hashes (judge_rgb)": lambda p: judge_rgb(p.rgb, guards),
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
        "both hashes (as judge_rgb makes them)": lambda p: hashes(p.rgb),
        "pHash (mintprep)": lambda p: phash(p.rgb),
        "tile signature": lambda p: tile_signature(p.rgb),
    }
    try:
        import imagehash
    except ImportError:
        return found
    found["imagehash.phash (peer, from decoded image)"] = lambda p: imagehash.phash(Image.fromarray(p.rgb))
    return found


def measured(side: int, pieces: int, rounds: int) -> dict[str, list[float]]:
    """Per measure, its CPU seconds per image in each round (this process's tree)."""
    guards = GuardSettings()
    pngs = [art_png(token_id, side) for token_id in range(1, pieces + 1)]
    images = [Piece(data, rgb, pm.luma_of(rgb), pm.edge_maps(rgb)) for data in pngs for rgb in [load_rgb(data)]]
    chosen = measures(guards)
    for measure in chosen.values():  # one round untimed: lazy imports (imagehash's scipy), per-shape caches, and
        for piece in images:  # the allocator's first growth (a fresh process decoded at ~1.8x its later cost)
            measure(piece)
    times: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(rounds):
        for name, measure in chosen.items():
            start = time.process_time()
            for piece in images:
                measure(piece)
            times[name].append((time.process_time() - start) / len(images))
    return times


def alternated(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Per tree ("after": this checkout, "before": args.before), the per-round times of one fresh process per round,
    the two trees' processes alternating."""
    trees = {"after": ROOT, "before": args.before.resolve()}
    found: dict[str, dict[str, list[float]]] = {"after": {}, "before": {}}
    for round_ in range(args.rounds):
        for label in (("after", "before") if round_ % 2 else ("before", "after")):
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--tree", str(trees[label]),
                                  "--side", str(args.side), "--pieces", str(args.pieces), "--rounds", "1", "--raw"],
                                 check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
            for name, values in json.loads(out.stdout).items():
                found[label].setdefault(name, []).extend(values)
    return found


def summary(times: dict[str, list[float]]) -> tuple[dict[str, float], dict[str, float]]:
    """(median ms per image, median ratio to the same round's decode floor) per measure."""
    floor = times["decode floor (Pillow)"]
    return ({name: round(statistics.median(values) * 1e3, 3) for name, values in times.items()},
            {name: round(statistics.median(t / f for t, f in zip(values, floor)), 2) for name, values in times.items()})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", type=int, default=384)
    parser.add_argument("--pieces", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--before", type=Path, help="a tree with an older mintprep/, measured alternately")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # read above, before the imports
    parser.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)  # a --before round's child
    args = parser.parse_args()
    if args.raw:
        print(json.dumps(measured(args.side, args.pieces, args.rounds)))
        return
    load_before = load()
    runs = alternated(args) if args.before else {"after": measured(args.side, args.pieces, args.rounds)}
    figures = {label: summary(times) for label, times in runs.items()}
    report = {"side": args.side, "pieces": args.pieces, "rounds": args.rounds, "load_before": load_before,
              "load_after": load(),
              **{f"{label}_{kind}": part for label, (ms, ratio) in figures.items()
                 for kind, part in (("ms_per_image", ms), ("ratio_to_decode", ratio))}}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.pieces} pieces {args.side}x{args.side}, median of {args.rounds} rounds (process CPU), "
          f"load {load_before} -> {report['load_after']}" + (f"; before: {args.before}" if args.before else ""))
    labels = list(figures)
    print("| measure | " + " | ".join(f"{label} ms / image | {label} / decode floor" for label in labels) + " |")
    print("|---|" + "---|---|" * len(labels))
    for name in figures["after"][0]:
        cells = [f"{figures[label][0][name]:.2f} | {figures[label][1][name]:.2f}" if name in figures[label][0]
                 else "- | -" for label in labels]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
