"""Allowlist trees published with the site: `allowlist/<phase>.json`, @openzeppelin/merkle-tree's "standard-v1" dump.

The page finds the connected wallet in `values`, walks `tree` from its leaf to the root and sends those sibling
hashes as the proof: no server is asked, and what a buyer's browser uses is exactly what `check` verifies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mintprep.chain.phases import SalePhase

ALLOWLIST_DIR = "allowlist"


def allowlist_path(phase_number: int) -> str:
    return f"{ALLOWLIST_DIR}/{phase_number}.json"


def allowlist_files(phases: list[SalePhase]) -> dict[str, bytes]:
    """Site-relative path -> bytes for every phase with an allowlist (deterministic JSON)."""
    return {
        allowlist_path(number): json.dumps(phase.allowlist.dump(), sort_keys=True, separators=(",", ":")).encode()
        for number, phase in enumerate(phases)
        if phase.allowlist is not None
    }


def read_site_allowlist(site_dir: Path, phase_number: int) -> dict[str, Any] | None:
    """The published dump for a phase, or None when the site has none (not built yet); unreadable JSON is {}."""
    path = Path(site_dir) / allowlist_path(phase_number)
    if not path.is_file():
        return None
    try:
        dump = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dump if isinstance(dump, dict) else {}
