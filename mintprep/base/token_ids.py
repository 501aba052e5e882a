"""Lists of token ids as messages show them: a count, the runs they form and the first few, never every id (a
contract with 60,000 mints made a refusal of 411,469 bytes). The one place a list of ids becomes text."""

from __future__ import annotations

from collections.abc import Iterable

SHOWN_RUNS = 8


def id_runs(ids: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted distinct ids as (first, last) runs of consecutive ids."""
    runs: list[tuple[int, int]] = []
    for token_id in sorted(set(ids)):
        if runs and token_id == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], token_id)
        else:
            runs.append((token_id, token_id))
    return runs


def summarise_ids(ids: Iterable[int], shown_runs: int = SHOWN_RUNS) -> str:
    """`1, 3, 7-9` for a few ids, with their count from 10 on (`1-77 (77 ids)`); past `shown_runs` runs, the first
    of them and what is left as counts: `0-2, 4, 6-9, ... and 59990 more in 120 more runs (60000 ids)`. Read after
    "token(s) " in a sentence, so the ids come first."""
    runs = id_runs(ids)
    count = sum(last - first + 1 for first, last in runs)
    text = ", ".join(str(first) if first == last else f"{first}-{last}" for first, last in runs[:shown_runs])
    if len(runs) <= shown_runs:
        return text if count < 10 else f"{text} ({count} ids)"
    shown = sum(last - first + 1 for first, last in runs[:shown_runs])
    return f"{text}, ... and {count - shown} more in {len(runs) - shown_runs} more runs ({count} ids)"
