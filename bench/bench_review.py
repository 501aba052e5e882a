"""The review sheet's weight at 10,000 tokens: first load (the summary file a browser opens) and every page.

    python bench/bench_review.py [--tokens 10000] [--per-page 50]

A Review as `gather_review` returns it, built without a pipeline: N tokens with four traits each (the layered
PFP's, tests/support/layered.py) and the 128 px thumbnail `review` makes of a real-size piece (384 px layered art
with grain, tests/support/real_art.py: 15-18 KB a thumbnail; 200 designs in turn), 1 in 20 tokens with a rejected
attempt (its image shown), 1 in 100 a near-duplicate pair. Rendered by `review_files`; sizes are the UTF-8 bytes
of each file. Goal: first load <= 2 MB. Prints JSON. (Before 2026-12-05 the thumbnails were the 64 px avatars'.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.collection.rarity import RarityReport, token_rarity  # noqa: E402
from mintprep.collection.traits import PiecePlan  # noqa: E402
from mintprep.commands.review import DropView, Review, TokenView  # noqa: E402
from mintprep.commands.review_pages import PER_PAGE, review_files  # noqa: E402
from mintprep.guards.image_guards import thumbnail_png  # noqa: E402
from tests.support.layered import BACKGROUNDS, EYES, FIGURES, HATS  # noqa: E402
from tests.support.real_art import art_rgb  # noqa: E402

TRAITS = ("background", "figure", "hat", "eyes")
DESIGNS = 200


def synthetic_review(size: int) -> Review:
    combos = list(product(BACKGROUNDS, FIGURES, HATS, EYES))
    images = {f"{i:064x}": thumbnail_png(art_rgb(i % DESIGNS + 1)) for i in range(len(combos))}
    plans, tokens, drops = [], [], []
    for token_id in range(1, size + 1):
        combo = token_id % len(combos)
        traits = list(zip(TRAITS, combos[combo]))
        plans.append(PiecePlan(token_id, tuple(traits), "a layered avatar", ""))
        tokens.append(TokenView(token_id, f"Avatar #{token_id}", traits, "a layered avatar", "pinned", False,
                                f"bafy{token_id:055d}", f"{combo:064x}", 0, 0.0, None))
        if token_id % 20 == 0:
            drops.append(DropView(token_id, 0, token_id, "fp16", "black", 11, "generate", "luma_p99 3 <= 8",
                                  None, None, f"{(combo + 1) % len(combos):064x}"))
        if token_id % 100 == 0:
            drops.append(DropView(token_id, 0, token_id, "fp32", "duplicate", None, "validate",
                                  f"near-duplicate of token {token_id - 1}", token_id - 1, f"{combo:064x}", None))
    rarity = RarityReport(traits=[], tokens=token_rarity(plans))
    ranks = {t.token_id: t for t in rarity.tokens}
    tokens = [replace(t, rank=ranks[t.token_id].rank, score=ranks[t.token_id].score) for t in tokens]
    counts = {"tokens": size, "pinned": size, "kept": 0, "rejected": 0, "pending": 0, "rejected_attempts": len(drops),
              "duplicates": sum(d.guard == "duplicate" for d in drops)}
    return Review("Bench avatars", counts, tokens, drops, rarity, images)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--per-page", type=int, default=PER_PAGE)
    args = parser.parse_args()
    review = synthetic_review(args.tokens)
    started = time.perf_counter()
    files = dict(review_files(review, per_page=args.per_page))
    seconds = time.perf_counter() - started
    sizes = {name: len(text.encode()) for name, text in files.items()}
    first = sizes["review.html"]
    pages = [v for k, v in sizes.items() if k != "review.html"]
    print(json.dumps({"tokens": args.tokens, "per_page": args.per_page, "files": len(files),
                      "first_load_bytes": first, "first_load_ok": first <= 2_000_000,
                      "largest_page_bytes": max(pages, default=0), "total_bytes": sum(sizes.values()),
                      "render_seconds": round(seconds, 2)}, indent=1))


if __name__ == "__main__":
    main()
