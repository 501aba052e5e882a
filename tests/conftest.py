"""Shared fixtures: a copy of the example collection in a temp folder, shrunk when a test needs speed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

# One anvil node and one Chromium per test session, shared by every test folder.
pytest_plugins = ["tests.support.anvil", "tests.support.browser", "tests.support.built_collection"]

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "collection" / "collection.yaml"

# The test tiers: a test using one of these fixtures (directly or through another fixture) gets the marker, so
# `make test-fast` (-m "not browser and not anvil and not ray and not slow") leaves it out without path lists.
# `slow` is set by hand on the tests that are slow for another reason.
MARK_BY_FIXTURE = {"browser": "browser", "anvil_node": "anvil", "ray_cluster": "ray"}

# No test may reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def write_collection(folder: Path, **changes: object) -> Path:
    """The example collection, with top-level keys replaced and nested keys set (`generator__steps=4` sets
    `generator.steps`), written to `folder`."""
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in set(getattr(item, "fixturenames", ())) & MARK_BY_FIXTURE.keys():
            item.add_marker(MARK_BY_FIXTURE[fixture])
