"""Read-only commands on a collection folder nothing may write to: they answer, and the folder is unchanged.

As root a chmod would not stop a write, so the folder is made immutable (`chattr +i`) when running as root,
and read-only by mode otherwise. A corrupt ledger is a clear exit 2 naming the file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.collection.config import load_collection
from tests.support.built_collection import SIZE
from tests.chain.conftest import deploy_for
from tests.conftest import write_collection


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes | None]]:
    return {str(p.relative_to(folder)): (p.stat().st_mode, p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    if os.geteuid() == 0:
        assert shutil.which("chattr"), "chattr (e2fsprogs) is needed to make a folder read-only for root"
        subprocess.run(["chattr", "-R", "+i", str(folder)], check=True)
        undo = ["chattr", "-R", "-i", str(folder)]
    else:
        subprocess.run(["chmod", "-R", "a-w", str(folder)], check=True)
        undo = ["chmod", "-R", "u+w", str(folder)]
    try:
        assert not os.access(folder / ".mintprep", os.W_OK) or os.geteuid() == 0
        yield
    finally:
        subprocess.run(undo, check=True)


def test_status_audit_check_validate_on_a_read_only_folder(collection: Path, chain):
    spec = dict(size=SIZE, generator__steps=3, chain={"network": "base", "rpc_url": chain.node.url})
    deployed = deploy_for(load_collection(write_collection(collection.parent, **spec)), chain.owner)
    spec["chain"]["contract"] = deployed.address
    write_collection(collection.parent, **spec)
    images = sorted(str(p) for p in collection.parent.rglob("*.png"))[:2]
    folder = collection.parent
    before = snapshot(folder)
    runner = CliRunner()
    with unwritable(folder):
        for args in (["status"], ["audit"], ["check"]):
            result = runner.invoke(app, [*args, str(collection), "--json"])
            answer = json.loads(result.stdout)
            # The page was built before the deploy: audit rightly reports it stale, and nothing else.
            problems = {problem["kind"] for problem in answer.get("problems", [])}
            assert result.exit_code == (1 if problems else 0) and problems <= {"page-stale"}, (args, result.output)
        if images:
            result = runner.invoke(app, ["validate", *images, "--config", str(collection), "--json"])
            assert result.exit_code in (0, 1) and len(json.loads(result.stdout)["images"]) == len(images)
    assert snapshot(folder) == before, "a read-only command wrote to the collection folder"


def test_a_corrupt_ledger_is_a_clear_error_naming_the_file(collection: Path):
    db = collection.parent / ".mintprep" / "state.db"
    db.write_bytes(b"this is not an SQLite database" * 100)
    for name in ("state.db-wal", "state.db-shm"):
        (db.parent / name).unlink(missing_ok=True)
    for command in (["status"], ["audit", "--no-chain"], ["run"]):
        result = CliRunner().invoke(app, [*command, str(collection), "--json"])
        assert result.exit_code == 2, (command, result.output)
        error = json.loads(result.stdout)["error"]
        assert "state.db" in error["message"] and "Traceback" not in result.output
