"""`mintprep audit --repair` on the real pipeline's output: broken pieces replaced, everything re-pointed,
old pins gone, nothing regenerated twice; and `--dry-run` changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli.audit_cmd  # noqa: F401  (registers `audit`)
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.cid import CID
from mintprep.state.ledger import Ledger
from mintprep.commands.repair import repair_collection
from tests.support.breakage import broken_pngs, plant_images
from tests.support.state import assert_repaired, final_state, generations_per_token, state_fingerprint


@pytest.mark.slow
def test_repair_replaces_broken_pieces_and_everything_pointing_at_them(collection: Path):
    col = load_collection(collection)
    broken = broken_pngs(col)
    planted = plant_images(collection, {2: broken["black"], 3: broken["flat"], 4: broken["noise"]})
    generations_before = generations_per_token(collection)

    html = collection.parent / "repair.html"
    result = CliRunner().invoke(app, ["audit", str(collection), "--repair", "--json", "--html", str(html)])

    assert result.exit_code == 0, result.output
    page = html.read_text()
    assert page.count(">replacement<") == 3, "before/after thumbnails for each repaired piece"
    assert "After the repair" in page and page.count('alt="token ') == 5, "the after state: every token's thumbnail"
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "repaired" and outcome["after"]["ok"]
    assert {t["token_id"] for t in outcome["plan"]["tokens"]} == {2, 3, 4}
    assert all(t["action"] == "regenerate" and t["next_attempt"] >= 1 for t in outcome["plan"]["tokens"])
    state = assert_repaired(collection, planted)
    assert state["first_attempts"] == {t["token_id"]: t["next_attempt"] for t in outcome["plan"]["tokens"]}
    assert set(outcome["plan"]["unpinned"]) >= set(planted.values())
    generations_after = generations_per_token(collection)
    assert {t: generations_after[t] - generations_before[t] for t in generations_after} == {1: 0, 2: 1, 3: 1, 4: 1, 5: 0}

    again = CliRunner().invoke(app, ["audit", str(collection), "--repair", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["status"] == "nothing-to-repair"


def test_dry_run_prints_the_plan_and_changes_nothing(collection: Path):
    col = load_collection(collection)
    planted = plant_images(collection, {3: broken_pngs(col)["noise"]})
    before = state_fingerprint(collection)

    result = CliRunner().invoke(app, ["audit", str(collection), "--repair", "--dry-run", "--json"])

    assert state_fingerprint(collection) == before
    assert result.exit_code == 1, result.output
    plan = json.loads(result.stdout)["plan"]
    assert [(t["token_id"], t["old_image_cid"], t["action"]) for t in plan["tokens"]] == [(3, planted[3], "regenerate")]
    assert plan["new_metadata_root"] is None and plan["old_metadata_root"]


def test_a_lost_block_is_pinned_again_under_the_same_cid_without_regenerating(collection: Path, monkeypatch):
    col = load_collection(collection)
    monkeypatch.setattr("mintprep.generate.load_generator", lambda *a, **k: pytest.fail("a re-pin loaded the model"))
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        lost = ledger.pieces()[2].image_cid
    before = final_state(collection)
    make_backend(col.spec.ipfs, col.state_dir).store.path_for(CID.parse(lost)).unlink()
    generations_before = generations_per_token(collection)

    outcome = repair_collection(col)

    assert [(t.token_id, t.action) for t in outcome.plan.tokens] == [(2, "repin")]
    assert outcome.after.ok and generations_per_token(collection) == generations_before
    after = final_state(collection)
    assert (after["metadata_root"], after["images"]) == (before["metadata_root"], before["images"])
    assert lost in after["backend_pins"]


@pytest.mark.slow
def test_repair_after_the_collection_shrank_writes_no_token_beyond_size(collection: Path):
    """size 5 -> 4 with no `run` in between: the rewritten manifest and metadata stop at token 4."""
    import yaml

    planted = plant_images(collection, {2: broken_pngs(load_collection(collection))["black"]})
    data = yaml.safe_load(collection.read_text())
    data["size"] = 4
    collection.write_text(yaml.safe_dump(data, sort_keys=False))

    outcome = repair_collection(load_collection(collection))

    assert outcome.status == "repaired" and outcome.after is not None and outcome.after.ok, outcome.to_json()
    with Ledger.open(load_collection(collection).state_dir, readonly=True) as ledger:
        assert [t.token_id for t in ledger.current_manifest().manifest.tokens] == [1, 2, 3, 4]
        assert sorted(ledger.pieces()) == [1, 2, 3, 4]
        assert ledger.current_manifest().manifest.tokens[1].image_cid != planted[2]
