"""The drop log (`.mintprep/drops.jsonl`): one JSON line per rejected attempt, read by `mintprep review`.

Records are built and appended here only. The ledger is the record; the log is for people, so a line cut short
by a killed run is skipped by its reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mintprep.state.ledger import AttemptRow
from mintprep.base import StateDir


def attempt_drop(token_id: int, request_key: str, attempt: AttemptRow, **known: Any) -> dict[str, Any]:
    """The line for one rejected attempt; `known` adds or overrides what the rejecting stage knows (the validate
    stage rejects an accepted attempt: its guard, reason and metrics, not the attempt's)."""
    return {"token_id": token_id, "request_key": request_key, "attempt": attempt.attempt, "seed": attempt.seed,
            "precision": attempt.precision, "guard": attempt.guard, "step": attempt.step, "reason": attempt.reason,
            "metrics": attempt.metrics, **known}


def imported_drop(token_id: int, request_key: str, **known: Any) -> dict[str, Any]:
    """The line for an imported piece rejected as published: it has no attempt, seed or precision."""
    return {"token_id": token_id, "request_key": request_key, "attempt": None, "seed": None, "precision": None,
            "imported": True, **known}


def logged_decisions(state: StateDir) -> set[tuple[int, str, str]]:
    """(token id, png sha256, guard) of every validate-stage line: a decision a rerun repeats (an imported piece
    judged as published again) is logged once."""
    if not state.drop_log.exists():
        return set()
    found = set()
    for line in state.drop_log.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
            if d.get("stage") == "validate":
                found.add((int(d["token_id"]), str(d.get("png_sha256")), str(d.get("guard"))))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a line cut short by a killed run
    return found


def append_drops(state: StateDir, drops: Iterable[dict[str, Any]]) -> None:
    lines = [json.dumps(drop, sort_keys=True) + "\n" for drop in drops]
    if lines:
        with state.drop_log.open("a", encoding="utf-8") as log:
            log.writelines(lines)
