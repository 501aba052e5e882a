"""The validate stage's costs: pixel guards per image, perceptual hash per image, near-duplicate check per piece.

    python bench/bench_pixel_checks.py [--sizes 64 512 1024] [--pieces 1000 10000] [--repeats 5]

Guards and hash: a photo (skimage astronaut) and a flat-art image (many exactly-constant tiles, the dead-tile
check's worst case) resized to each size; the median CPU time (process time, so other jobs on a shared machine
count less) of `repeats` calls. Duplicate check: n hashes (uniform 64-bit, plus 10% made from earlier ones by
flipping 4-12 bits so buckets are not all singletons) through `find_duplicates` at the default distance; per
piece in microseconds, and at n = 1,000 all pairs by brute force for comparison (and as a check of the result). Growth no faster than n log n means the per-piece cost may grow at most by log(10000)/log(1000) = 1.33
from 1,000 to 10,000 pieces. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import skimage.data  # noqa: E402
from PIL import Image  # noqa: E402

from mintprep.guards.near_duplicates import distance, find_duplicates, near_pairs, phash  # noqa: E402
from mintprep.guards.image_guards import GuardSettings, check_pixels  # noqa: E402


def cpu_ms(fn, repeats: int) -> float:  # noqa: ANN001
    fn()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return round(statistics.median(times) * 1000, 2)


def flat_art(side: int) -> np.ndarray:
    img = np.full((side, side, 3), (240, 236, 230), np.uint8)
    y, x = np.mgrid[0:side, 0:side]
    img[(y - side / 2) ** 2 + (x - side / 2) ** 2 < (side / 3) ** 2] = (220, 30, 40)
    img[side // 8: side // 4, side // 8: side - side // 8] = (20, 60, 160)
    return img


def hashes(n: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    out: list[int] = []
    for _ in range(n):
        if out and rng.random() < 0.1:
            value = rng.choice(out)
            for bit in rng.sample(range(64), rng.randint(4, 12)):
                value ^= 1 << bit
        else:
            value = rng.getrandbits(64)
        out.append(value)
    return out


def duplicate_check(n: int, max_distance: int, repeats: int) -> dict[str, float]:
    values = hashes(n)
    pairs = list(enumerate(values, start=1))
    times = []
    for _ in range(repeats):
        start = time.process_time()
        found = find_duplicates(pairs, max_distance)
        times.append(time.process_time() - start)
    elapsed = statistics.median(times)
    result = {"pieces": n, "total_s": round(elapsed, 4), "per_piece_us": round(elapsed / n * 1e6, 2),
              "close_pairs": int(len(near_pairs(values, max_distance)[0])), "duplicates": len(found)}
    if n <= 2000:
        start = time.process_time()
        kept: list[int] = []
        brute = 0
        for value in values:  # the same rule by comparing with every piece kept so far
            if any(distance(value, other) <= max_distance for other in kept):
                brute += 1
            else:
                kept.append(value)
        result["all_pairs_s"] = round(time.process_time() - start, 4)
        assert brute == len(found), (brute, len(found))
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 512, 1024])
    parser.add_argument("--pieces", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    guards = GuardSettings()
    photo = skimage.data.astronaut()
    per_image = []
    for side in args.sizes:
        resized = np.array(Image.fromarray(photo).resize((side, side), Image.Resampling.LANCZOS))
        art = flat_art(side)
        per_image.append({"side": side,
                          "guards_photo_ms": cpu_ms(lambda: check_pixels(resized, guards), args.repeats),
                          "guards_flat_art_ms": cpu_ms(lambda: check_pixels(art, guards), args.repeats),
                          "phash_ms": cpu_ms(lambda: phash(resized), args.repeats)})
    checks = [duplicate_check(n, guards.duplicate_distance, args.repeats) for n in args.pieces]
    growth = checks[-1]["per_piece_us"] / checks[0]["per_piece_us"] if len(checks) > 1 else None
    print(json.dumps({"per_image": per_image, "duplicate_check": checks,
                      "per_piece_growth": None if growth is None else round(growth, 3)}, indent=2))


if __name__ == "__main__":
    main()
