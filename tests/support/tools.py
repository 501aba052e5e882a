"""External tools the tests need: a missing one skips locally but fails under CI (CI=true)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def require_tool(path_or_name: str | Path, why: str) -> Path:
    """Return the tool's path, or skip (fail when CI is set) naming what is missing and how to get it."""
    candidate = Path(path_or_name)
    found = candidate if candidate.is_absolute() and candidate.exists() else None
    if found is None and not candidate.is_absolute():
        located = shutil.which(str(path_or_name))
        found = Path(located) if located else (REPO / candidate if (REPO / candidate).exists() else None)
    if found is None:
        message = f"{path_or_name} not found ({why}); `make test` installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found
