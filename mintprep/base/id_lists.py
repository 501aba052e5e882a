"""Token ids as people read them: runs as ranges, long lists cut to their first few (status, export)."""

from __future__ import annotations

from collections.abc import Iterable


def id_ranges(ids: Iterable[int]) -> list[str]:
    """1, 2, 3, 7, 9, 10 -> ["1-3", "7", "9-10"]."""
    spans: list[list[int]] = []
    for token_id in sorted(set(ids)):
        if spans and token_id == spans[-1][1] + 1:
            spans[-1][1] = token_id
        else:
            spans.append([token_id, token_id])
    return [str(a) if a == b else f"{a}-{b}" for a, b in spans]


def summarise_ids(ids: Iterable[int], shown: int = 8) -> str:
    """"3 tokens: 2, 8, 13"; past `shown` runs, "40 tokens: 1-3, 7, … (and 12 more runs)"."""
    ids = sorted(set(ids))
    runs = id_ranges(ids)
    more = f", … (and {len(runs) - shown} more runs)" if len(runs) > shown else ""
    return f"{len(ids)} token{'s' if len(ids) != 1 else ''}: {', '.join(runs[:shown])}{more}"
