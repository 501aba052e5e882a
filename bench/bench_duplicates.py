"""The near-duplicate rule's trade-off on the layered corpus of the tests (tests/support/layered.py).

    python bench/bench_duplicates.py [--markdown] [--real COUNT [--side 256]]

Every pair of the corpus whose global pHash is within 8 bits (every candidate the default 6 finds, and a margin),
labelled as a planted re-encoding (JPEG round trip q92, 1-pixel resize, +2% brightness, 6 inverted pixels), a
layer variant (another hat or eyes on the same background and figure) or distinct; its pHash distance and tile
difference; then, per tile-difference threshold, how many re-encodings are caught and how many layer variants and
distinct pairs are flagged (at the default pHash distance). Prints JSON, or the tables docs/duplicates.md shows.

`--real COUNT`: the same rule on COUNT pieces of real-size layered art (tests/support/real_art.py: each token its own
layer combination, so every pair is distinct by design but the planted near-copies, one in every 100): every pair
within the default pHash distance, the planted copies caught and the tile differences of the closest distinct pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.guards.image_guards import GuardSettings  # noqa: E402
from mintprep.guards.near_duplicates import distance, near_pairs, phash, tile_difference, tile_signature  # noqa: E402
from tests.support.layered import layered_collection  # noqa: E402
from tests.support.real_art import art_png, copy_of  # noqa: E402


def measure() -> dict:
    corpus = layered_collection()
    ids = sorted(corpus.images)
    hashes = {t: phash(corpus.images[t]) for t in ids}
    tiles = {t: tile_signature(corpus.images[t]) for t in ids}

    def label(a: int, b: int) -> str:
        for planted, kind in ((corpus.duplicates, "re-encoding"), (corpus.variants, "layer variant")):
            if planted.get(b, (None,))[0] == a:
                return f"{kind}: {planted[b][1]}"
        return "distinct"

    pairs = [{"pair": [a, b], "kind": label(a, b), "phash_distance": distance(hashes[a], hashes[b]),
              "tile_diff": tile_difference(tiles[a], tiles[b])}
             for i, a in enumerate(ids) for b in ids[i + 1:] if distance(hashes[a], hashes[b]) <= 8
             or label(a, b) != "distinct"]
    pairs.sort(key=lambda p: (p["kind"] == "distinct", p["kind"], p["phash_distance"]))
    defaults = GuardSettings()
    sweep = []
    for threshold in (None, 2, 3, 4, 6, 8, 10, 12):
        def flagged(kind: str) -> int:
            return sum(p["kind"].startswith(kind) and p["phash_distance"] <= defaults.duplicate_distance
                       and (threshold is None or p["tile_diff"] <= threshold) for p in pairs)
        sweep.append({"duplicate_tile_diff": threshold, "re-encodings caught": flagged("re-encoding"),
                      "layer variants flagged": flagged("layer variant"), "distinct flagged": flagged("distinct")})
    return {"tokens": len(ids), "re-encodings": len(corpus.duplicates), "layer variants": len(corpus.variants),
            "pairs": pairs, "sweep": sweep}


def markdown(result: dict) -> str:
    lines = ["| pair | kind | pHash distance | tile difference |", "|---|---|---|---|"]
    lines += [f"| {a}–{b} | {p['kind']} | {p['phash_distance']} | {p['tile_diff']:.2f} |"
              for p in result["pairs"] for a, b in [p["pair"]]]
    lines += ["", "| duplicate_tile_diff | re-encodings caught | layer variants flagged | distinct pairs flagged |",
              "|---|---|---|---|"]
    lines += [f"| {s['duplicate_tile_diff'] if s['duplicate_tile_diff'] is not None else 'none (pHash only)'} | "
              f"{s['re-encodings caught']}/{result['re-encodings']} | {s['layer variants flagged']}/"
              f"{result['layer variants']} | {s['distinct flagged']} |" for s in result["sweep"]]
    return "\n".join(lines)


def _hashes(token_id: int, side: int) -> tuple[int, bytes]:
    import io

    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(art_png(token_id, side))) as image:
        rgb = np.asarray(image.convert("RGB"))
    return phash(rgb), tile_signature(rgb)


def measure_real(count: int, side: int) -> dict:
    from multiprocessing import Pool

    with Pool() as pool:
        hashed = pool.starmap(_hashes, [(t, side) for t in range(1, count + 1)], chunksize=64)
    defaults = GuardSettings()
    firsts, seconds, _ = near_pairs([h for h, _ in hashed], defaults.duplicate_distance)
    planted, distinct = [], []
    for i, j in zip(firsts.tolist(), seconds.tolist()):
        a, b = sorted((i + 1, j + 1))
        (planted if copy_of(b) == a else distinct).append(tile_difference(hashed[i][1], hashed[j][1]))
    distinct.sort()
    copies = sum(copy_of(t) is not None for t in range(1, count + 1))
    caught = sum(d <= defaults.duplicate_tile_diff for d in planted)
    return {"pieces": count, "side": side, "candidate pairs": len(planted) + len(distinct),
            "planted copies": copies, "planted caught": caught, "planted largest tile diff": max(planted, default=None),
            "distinct flagged": sum(d <= defaults.duplicate_tile_diff for d in distinct),
            "distinct smallest tile diffs": distinct[:5], "duplicate_tile_diff": defaults.duplicate_tile_diff}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--real", type=int, metavar="COUNT")
    parser.add_argument("--side", type=int, default=256)
    args = parser.parse_args()
    if args.real:
        print(json.dumps(measure_real(args.real, args.side), indent=1))
    else:
        outcome = measure()
        print(markdown(outcome) if args.markdown else json.dumps(outcome, indent=1))
