"""`status` keeps what it takes from collection.yaml beside the ledger: a status of the unchanged file reads neither
YAML nor the models and answers as a full one does; any change to the file, to its place or to the imported traits
is read afresh, and the file is still refused when it is wrong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.collection import load_collection
from mintprep.commands.status import collection_status
from mintprep.state import Ledger
from tests.conftest import write_collection

STATUS_IN_FRESH_PROCESS = """
import json, sys
from typer.testing import CliRunner
from mintprep.cli import app
answer = CliRunner().invoke(app, ["status", sys.argv[1], "--json"])
print(json.dumps({"code": answer.exit_code, "answer": json.loads(answer.stdout),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "yaml")
                                   or m == "mintprep.collection.config")}))
"""


def status_fresh(collection: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", STATUS_IN_FRESH_PROCESS, str(collection)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def status(collection: Path) -> tuple[int, dict]:
    answer = CliRunner().invoke(app, ["status", str(collection), "--json"])
    return answer.exit_code, json.loads(answer.stdout)


@pytest.fixture
def with_ledger(tmp_path: Path) -> Path:
    """A 5-piece collection whose ledger records two imported tokens (nothing made yet)."""
    collection = write_collection(tmp_path / "c", size=5)
    with Ledger.open(collection.parent / ".mintprep") as ledger:
        ledger.record_imports("bench-folder", {1: [("flower", "tulip")], 2: [("flower", "rose")]})
    return collection


def test_a_second_status_reads_no_yaml_or_model_and_answers_as_the_first(with_ledger: Path):
    first, second = status_fresh(with_ledger), status_fresh(with_ledger)
    assert first["code"] == second["code"] == 0
    assert "pydantic" in first["loaded"] and "yaml" in first["loaded"]  # the file was validated once
    assert second["loaded"] == []
    assert second["answer"] == first["answer"] == collection_status(load_collection(with_ledger))
    assert second["answer"]["rarity"]["published"]  # the imported tokens' traits are in what was kept


def test_a_changed_file_is_read_again_and_a_wrong_one_refused(with_ledger: Path):
    assert status(with_ledger)[1]["pieces"] == 5
    write_collection(with_ledger.parent, size=7)
    assert status(with_ledger)[1]["pieces"] == 7
    with_ledger.write_text(with_ledger.read_text().replace("size: 7", "size: seven"))
    code, answer = status(with_ledger)
    assert code == 2 and answer["error"]["field"] == "size"


def test_new_imported_traits_give_a_new_rarity_report(with_ledger: Path):
    before = status(with_ledger)[1]["rarity"]
    with Ledger.open(with_ledger.parent / ".mintprep") as ledger:
        ledger.record_imports("bench-folder", {3: [("flower", "poppy")]})
    after = status(with_ledger)[1]
    assert after["rarity"] != before and after == collection_status(load_collection(with_ledger))


def test_a_moved_collection_names_its_new_place(with_ledger: Path, tmp_path: Path):
    status(with_ledger)
    moved = tmp_path / "moved"
    shutil.copytree(with_ledger.parent, moved)
    answer = status(moved / "collection.yaml")[1]
    assert answer["collection"] == str((moved / "collection.yaml").resolve())


def test_the_page_folder_is_still_checked_to_be_mintprep_s_own(with_ledger: Path):
    status(with_ledger)
    page = Path(load_collection(with_ledger).page_dir)
    page.mkdir(parents=True, exist_ok=True)
    (page / "notes.txt").write_text("the user's own file")
    code, answer = status(with_ledger)
    assert code == 2 and answer["error"]["field"] == "page.out"


def test_a_damaged_kept_file_is_ignored(with_ledger: Path):
    first = status(with_ledger)[1]
    (with_ledger.parent / ".mintprep" / "status-inputs.json").write_text('{"inputs": ')
    assert status(with_ledger)[1] == first


def test_status_reads_the_ledger_in_one_query_what_the_single_reads_give(collection: Path):
    """On a collection the pipeline built (pieces, verdicts, a manifest), plus an import, a publish, the minted
    tokens a run saw and a release: Ledger.status_read gives what the ledger's other reads give, in one statement."""
    from mintprep.stages import settings_key
    from mintprep.state import RELEASED_KIND

    col = load_collection(collection)
    with Ledger.open(col.state_dir) as ledger:
        ledger.record_imports("bench-folder", {2: [("flower", "rose"), ("style", "woodcut")]})
        ledger.record_publish("dir", "/srv/page", None, "bafyroot", None)
        ledger.record_minted_seen([1, 3])
        ledger.record_chain_tx(RELEASED_KIND, 8453, "0x" + "ab" * 20, "0x" + "cd" * 32, {})
    key = settings_key(col)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        statements = []
        ledger._conn.set_trace_callback(statements.append)
        read = ledger.status_read(key)
        ledger._conn.set_trace_callback(None)
        assert len(statements) == 1
        assert read.pieces == ledger.pieces() and len(read.pieces) == 5
        assert read.verdicts == {token_id: ledger.verdict(piece.png_sha256, key)[0]
                                 for token_id, piece in read.pieces.items()}
        assert set(read.verdicts.values()) == {True}
        newest = ledger.current_manifest()
        assert read.manifest == (newest.metadata_root, newest.manifest_cid, newest.provenance_hash)
        assert read.published == ledger.latest_publish().location == "/srv/page"
        assert read.minted_seen == ledger.minted_seen() and read.minted_seen[0] == [1, 3]
        assert read.imported == ledger.imported_traits() == {2: [("flower", "rose"), ("style", "woodcut")]}
        assert RELEASED_KIND in read.tx_kinds
