"""A batched import and a batched pin, each SIGKILLed at random moments, converge on a rerun to the state of a
run that was never interrupted: the same ledger rows (timestamps and row ids aside), the same blocks and pin
set in the local store, the same objects. Real processes, real files, real SQLite; the kill lands after the
child has imported everything and said `ready`, at an offset drawn from a seeded generator within the
uninterrupted run's duration."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mintprep.ipfs.store import BlockStore
from tests.conftest import REPO, write_collection
from tests.support.batched_work import write_folder

COUNT = 600
SEEDS = (1, 2, 3)
ROWS = {
    "pins": "SELECT cid, backend, content_sha256, profile, kind, name, remote_id, unpinned_at FROM pins",
    "pieces": "SELECT token_id, request_key, png_sha256, image_cid, metadata_cid, status FROM pieces",
    "imports": "SELECT token_id, source, traits FROM imports",
    "manifests": "SELECT DISTINCT metadata_root, manifest_cid, manifest_sha256, provenance_hash FROM manifests",
    "published_tokens": "SELECT token_id FROM published_tokens",
}


def child(mode: str, collection: Path, argument: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "tests.support.batched_work", mode, str(collection), argument],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert process.stdout.readline().strip() == "ready"
    return process


def finish(mode: str, collection: Path, argument: str) -> float:
    """Run to the end; return how long the work took after `ready`.

    An import that had finished when the kill came (its last row committed, the process not yet gone) is refused
    on a rerun, as any second import into the same ledger is: its state is compared as it stands."""
    process = child(mode, collection, argument)
    start = time.monotonic()
    _, errors = process.communicate(timeout=600)
    assert process.returncode == 0 or (mode == "import" and "already has pinned metadata" in errors), errors
    return time.monotonic() - start


def state(collection: Path) -> dict[str, object]:
    state_dir = collection.parent / ".mintprep"
    conn = sqlite3.connect(state_dir / "state.db")
    rows = {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in ROWS.items()}
    conn.close()
    files = {}
    for folder in ("objects", "ipfs/blocks"):
        for path in (state_dir / folder).rglob("*"):
            if path.is_file() and not path.name.startswith("."):  # dot files: temps of a killed batch, never read
                files[str(path.relative_to(state_dir))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {**rows, "files": files, "pin_set": BlockStore(state_dir / "ipfs").read_pins()}


def converges(tmp_path: Path, mode: str, argument: str, yaml_changes: dict[str, object]) -> None:
    reference = write_collection(tmp_path / "reference", **yaml_changes)
    took = finish(mode, reference, argument)
    expected = state(reference)
    assert len(expected["files"]) > COUNT and len(expected["pieces"] or expected["pins"]) >= COUNT
    interrupted = 0
    for seed in SEEDS:
        collection = write_collection(tmp_path / f"killed-{seed}", **yaml_changes)
        process = child(mode, collection, argument)
        time.sleep(random.Random(seed).uniform(0.05, 0.95) * took)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        interrupted += process.returncode == -signal.SIGKILL and state(collection) != expected
        finish(mode, collection, argument)
        assert state(collection) == expected, f"seed {seed}: the rerun after a kill did not converge"
    assert interrupted, "no kill landed in the middle of the work: the test proved nothing"


@pytest.mark.slow
def test_a_killed_batched_import_converges_on_rerun(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    write_folder(folder, COUNT)
    converges(tmp_path, "import", str(folder), {"size": COUNT})


@pytest.mark.slow
def test_a_killed_batched_pin_converges_on_rerun(tmp_path: Path) -> None:
    converges(tmp_path, "pin", str(COUNT), {"size": COUNT})
