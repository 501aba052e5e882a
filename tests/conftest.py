"""Shared fixtures: a copy of the example collection in a temp folder, shrunk when a test needs speed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

# One anvil node and one Chromium per test session, shared by every test folder.
pytest_plugins = ["tests.support.anvil", "tests.support.browser"]

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "collection" / "collection.yaml"

# No test may reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def write_collection(folder: Path, **changes: object) -> Path:
    """The example collection, with top-level keys replaced and `a.b` dotted keys set, written to `folder`."""
    data = yaml.safe_load(EXAMPLE.read_text())
    for key, value in changes.items():
        target = data
        *parents, leaf = key.split("__")
        for parent in parents:
            target = target.setdefault(parent, {})
        target[leaf] = value
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "collection.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture
def small_collection(tmp_path: Path) -> Path:
    """The example collection cut to 6 pieces and 4 steps: every stage, seconds not minutes."""
    return write_collection(tmp_path / "col", size=6, generator__steps=4)


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    target = tmp_path / "example"
    shutil.copytree(EXAMPLE.parent, target, ignore=shutil.ignore_patterns(".mintprep", "site"))
    return target / "collection.yaml"
