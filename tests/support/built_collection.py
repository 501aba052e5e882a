"""The built-collection fixtures of the audit, repair, export and import tests: a small collection built by the real
pipeline once per session, copied per test (a plugin of tests/conftest.py, so every folder shares the one build)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import write_collection

SIZE = 5


def build_collection(folder: Path, **changes: object) -> Path:
    from mintprep.collection.config import load_collection
    from mintprep.commands import run_collection  # imported when a test builds one, not by every session

    path = write_collection(folder, size=SIZE, generator__steps=3, **changes)
    report = run_collection(load_collection(path))
    assert report.complete and report.pinned == SIZE, report.to_json()
    return path


@pytest.fixture(scope="session")
def built_collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_collection(tmp_path_factory.mktemp("built") / "col")


@pytest.fixture
def collection(built_collection: Path, tmp_path: Path) -> Path:
    """A private copy of the built collection (ledger, store, page), free to break."""
    target = tmp_path / "col"
    shutil.copytree(built_collection.parent, target)
    return target / built_collection.name


