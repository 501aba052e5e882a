"""The review sheet's first load at 10,000 tokens (bench/bench_review.py's synthetic review: layered thumbnails,
rejected attempts with images, near-duplicate pairs) stays within 2 MB, and its pages hold every token once."""

from __future__ import annotations

import re

from bench.bench_review import synthetic_review
from mintprep.commands.review_pages import PER_PAGE, review_files


def test_ten_thousand_tokens_open_in_under_two_megabytes() -> None:
    review = synthetic_review(10_000)
    files = dict(review_files(review))
    assert len(files["review.html"].encode()) <= 2_000_000
    tokens = [name for name in files if name.startswith("review-pages/tokens-")]
    assert len(tokens) == 10_000 // PER_PAGE
    cards = [int(t) for name in tokens for t in re.findall(r'class="card" id="token-(\d+)"', files[name])]
    assert sorted(cards) == list(range(1, 10_001))
    assert all(len(text.encode()) <= 2_000_000 for text in files.values())
