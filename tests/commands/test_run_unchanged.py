"""A `run` with nothing to do since the last run that found nothing to do answers with that run's report and loads
no stage; anything it reads or writes that changed (the file, the state, the page, the machine, a secret, a fault
point) runs every stage, which redoes what the change calls for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mintprep.base import StateDir
from mintprep.cli import app
from mintprep.collection import read_collection
from mintprep.commands import RunReport
from mintprep.commands.run.unchanged import existing_paths, named_strings, stamp_if_unchanged, watched_roots
from tests.conftest import write_collection

RUN_IN_FRESH_PROCESS = """
import json, sys
from typer.testing import CliRunner
from mintprep.cli import app
answer = CliRunner().invoke(app, ["run", sys.argv[1], "--json"])
print(json.dumps({"code": answer.exit_code, "answer": json.loads(answer.stdout),
                  "loaded": sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "yaml", "numpy", "PIL"}
                                   | {m for m in sys.modules if m.startswith("mintprep.stages")})}))
"""


def run_fresh(collection: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN_IN_FRESH_PROCESS, str(collection)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def run(collection: Path, *args: str) -> tuple[int, dict]:
    answer = CliRunner().invoke(app, ["run", str(collection), "--json", *args])
    return answer.exit_code, json.loads(answer.stdout)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-piece collection run once (everything made), kept to be copied by each test."""
    collection = write_collection(tmp_path_factory.mktemp("made") / "c", size=3, generator__steps=2)
    code, first = run(collection)
    assert code == 0 and first["generated"] == 3 and not first["unchanged"]
    return collection


@pytest.fixture
def settled_after(made: Path, tmp_path: Path) -> tuple[Path, dict]:
    """A copy of `made` and a second run of it, which found nothing to do and kept what it saw; its report."""
    shutil.copytree(made.parent, tmp_path / "c", symlinks=True)
    collection = tmp_path / "c" / "collection.yaml"
    code, second = run(collection)
    assert code == 0 and (second["generated"], second["pinned"], second["unchanged"]) == (0, 0, False)
    assert StateDir(collection.parent / ".mintprep").run_stamp.is_file()
    return collection, second


@pytest.fixture
def settled(settled_after: tuple[Path, dict]) -> Path:
    return settled_after[0]


def test_an_unchanged_run_loads_no_stage_and_reports_what_the_last_run_did(settled_after: tuple[Path, dict]):
    collection, full = settled_after
    fresh = run_fresh(collection)
    assert fresh["code"] == 0 and fresh["answer"]["unchanged"]
    assert {**fresh["answer"], "unchanged": False} == full
    assert fresh["loaded"] == [], "nothing changed: neither the models, nor the pixel code, nor a stage"


def test_a_full_run_of_a_changed_file_runs_its_stages(settled: Path):
    data = yaml.safe_load(settled.read_text())
    data["size"] = 4
    settled.write_text(yaml.safe_dump(data, sort_keys=False))
    code, report = run(settled)
    assert code == 0 and (report["generated"], report["unchanged"]) == (1, False)


@pytest.mark.parametrize("damage", ["object deleted", "page deleted", "page asset deleted", "ledger written"])
def test_what_a_run_reads_or_writes_changed_runs_it_again_and_mends(settled: Path, damage: str):
    state = StateDir(settled.parent / ".mintprep")
    page = settled.parent / "site" / "index.html"
    if damage == "object deleted":
        victim = next(p for p in state.objects.rglob("*") if p.is_file())
        victim.unlink()
    elif damage == "page deleted":
        shutil.rmtree(page.parent)
    elif damage == "page asset deleted":
        victim = next(p for p in page.parent.rglob("*") if p.is_file() and p != page)
        victim.unlink()
    else:
        import sqlite3

        with sqlite3.connect(state.ledger) as db:  # any write: a command recorded something
            db.execute("CREATE TABLE IF NOT EXISTS scratch (x)")
    code, report = run(settled)
    assert code == 0 and not report["unchanged"]
    if damage == "object deleted":
        assert victim.is_file(), "the full run restored the local copy"
    if damage.startswith("page"):
        assert page.is_file(), "the full run built the page again"
    if damage == "page asset deleted":
        assert victim.is_file()


def test_what_is_no_input_of_a_run_keeps_it_unchanged(settled: Path):
    """A report saved beside the file, a status, review's thumbnails: none is read by a run."""
    (settled.parent / "report.json").write_text("{}")
    assert CliRunner().invoke(app, ["status", str(settled), "--json"]).exit_code == 0
    StateDir(settled.parent / ".mintprep").thumbnails.mkdir(exist_ok=True)
    (StateDir(settled.parent / ".mintprep").thumbnails / "x.png").write_bytes(b"png")
    code, report = run(settled)
    assert code == 0 and report["unchanged"]


@pytest.mark.parametrize("variable", ["OMP_NUM_THREADS", "MINTPREP_FAULT_AT"])
def test_a_changed_machine_or_a_fault_point_runs_every_stage(settled: Path, monkeypatch: pytest.MonkeyPatch,
                                                              variable: str):
    monkeypatch.setenv(variable, "3" if variable == "OMP_NUM_THREADS" else "no-such-point")
    code, report = run(settled)
    assert code == 0 and not report["unchanged"]


def test_options_and_a_damaged_stamp_run_every_stage(settled: Path):
    assert not run(settled, "--include-minted")[1]["unchanged"]
    assert not run(settled, "--executor", "local")[1]["unchanged"]
    stamp = StateDir(settled.parent / ".mintprep").run_stamp
    run(settled)
    assert run(settled)[1]["unchanged"]
    stamp.write_bytes(b'{"collection": [')
    code, report = run(settled)
    assert code == 0 and not report["unchanged"]


def test_a_secret_the_file_names_unset_is_refused_as_a_full_run_refuses_it(settled: Path,
                                                                           monkeypatch: pytest.MonkeyPatch):
    """A backend token taken away after the stamp: exit 2 naming the variable, not the kept report."""
    data = yaml.safe_load(settled.read_text())
    data["ipfs"] = {**data.get("ipfs", {}), "backend": "kubo", "api_url": "http://127.0.0.1:9/api/v0",
                    "token_env": "MINTPREP_TEST_KUBO_TOKEN"}
    settled.write_text(yaml.safe_dump(data, sort_keys=False))
    col, source = read_collection(settled)
    report = RunReport(pieces=3, generation_skipped=3, pin_skipped=3)  # as a run that found nothing to do
    monkeypatch.setenv("MINTPREP_TEST_KUBO_TOKEN", "t0ken")
    stamp_if_unchanged(col, source, report, include_minted=False)
    assert run(settled)[1]["unchanged"]
    monkeypatch.delenv("MINTPREP_TEST_KUBO_TOKEN")
    answer = CliRunner().invoke(app, ["run", str(settled), "--json"])
    assert answer.exit_code == 2 and "MINTPREP_TEST_KUBO_TOKEN" in answer.stdout


def test_a_collection_with_a_contract_keeps_no_stamp(settled: Path):
    """The chain is read by every run (a mint, a price set elsewhere): no file here can say it is unchanged."""
    data = yaml.safe_load(settled.read_text())
    data.setdefault("chain", {})["contract"] = "0x" + "11" * 20
    settled.write_text(yaml.safe_dump(data, sort_keys=False))
    col, source = read_collection(settled)
    stamp_if_unchanged(col, source, RunReport(pieces=3, generation_skipped=3, pin_skipped=3), include_minted=False)
    assert not StateDir(settled.parent / ".mintprep").run_stamp.exists()


def test_the_files_the_collection_file_names_are_watched_wherever_they_lie(settled: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere" / "allowlist.csv"
    outside.parent.mkdir()
    outside.write_text("address\n")
    base = settled.parent
    dump = {"a": [str(outside), "a cat, oil on canvas"], "b": {"c": "site", "token_env": "T"}}
    assert list(named_strings(dump)) == [("a", str(outside)), ("a", "a cat, oil on canvas"), ("c", "site"),
                                         ("token_env", "T")]
    found = [p for _, value in named_strings(dump) for p in existing_paths(value, (base,))]
    assert found == [outside.resolve(), (base / "site").resolve()]
    col, _ = read_collection(settled)
    roots = watched_roots(col, col.spec.model_dump())
    assert str(col.state_dir) in roots and str((base / "site").resolve()) in roots
    assert str(base) not in roots, "the collection's own folder is not walked: a report saved there is no input"
