"""Collection checks in the validate stage, end to end on the tiny model (real torch, real SQLite, real files):
near-duplicates are resampled before pinning, and a changed pixel threshold re-validates stored images without
resampling the pieces that still pass."""

from __future__ import annotations

import json
import sqlite3
from itertools import combinations
from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.generate import request as request_module
from mintprep.state.ledger import Ledger
from mintprep.guards.near_duplicates import distance
from mintprep.commands import run_collection
from mintprep.stages.screen import stored_verdicts
from mintprep.commands.status import collection_status
from mintprep.guards.image_guards import load_rgb
from tests.conftest import write_collection

PROMPT = "a tulip in pixel art style, warm palette"


def pinned(path: Path) -> dict[int, tuple[str, str]]:
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        return {t: (p.png_sha256, p.image_cid) for t, p in ledger.pieces().items() if p.status == "pinned"}


def drops(path: Path) -> list[dict]:
    log = path.parent / ".mintprep" / "drops.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def seed_blind_first_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Token 2's first attempt samples with token 1's first seed: with (almost) the same prompt, the tiny model
    draws (almost) the same picture, as a low-diversity model or a distilled sampler does for different seeds.
    Later attempts keep their own seeds, so a resample can escape."""
    real = request_module.attempt_seed

    def colliding(collection_seed: int, token_id: int, attempt: int) -> int:
        return real(collection_seed, 1 if (token_id, attempt) == (2, 0) else token_id, attempt)

    monkeypatch.setattr("mintprep.generate.generator.attempt_seed", colliding)


@pytest.mark.slow
def test_a_near_duplicate_is_resampled_before_pinning_and_the_drop_log_names_the_collision(
        tmp_path: Path, seed_blind_first_attempt: None) -> None:
    # One full stop apart: other bytes, a pHash 2 bits away (different seeds of one prompt sit 12 or more apart).
    path = write_collection(tmp_path / "dup", size=4, generator__steps=3,
                            pieces={1: {"prompt": PROMPT}, 2: {"prompt": PROMPT + "."}})
    col = load_collection(path)
    report = run_collection(col)
    assert report.complete, report.rejected
    assert [(r["token_id"], r["guard"], r["collides_with"]) for r in report.resampled] == [(2, "duplicate", 1)]
    assert report.generated == 5, "four pieces and one resample"

    logged = [d for d in drops(path) if d["guard"] == "duplicate"]
    assert len(logged) == 1
    assert logged[0]["token_id"] == 2 and logged[0]["collides_with"] == 1 and logged[0]["attempt"] == 0
    assert logged[0]["metrics"]["phash_distance"] <= col.spec.guards.duplicate_distance
    assert "near-duplicate of token 1" in logged[0]["reason"]

    final = pinned(path)
    assert sorted(final) == [1, 2, 3, 4]
    assert final[2][0] != logged[0]["png_sha256"], "the duplicate image was never pinned"
    assert final[1][0] != logged[0]["png_sha256"], "near-identical, not the same bytes"
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        hashes = {t: stored_verdicts(col, ledger, [sha])[sha].phash for t, (sha, _) in final.items()}
        token2 = ledger.generation(ledger.pieces()[2].request_key)
        assert token2.provenance["attempt"] == 1, "resampled at its next attempt, with that attempt's seed"
        assert col.spec.guards.duplicate_distance < min(distance(hashes[a], hashes[b])
                                                        for a, b in combinations(hashes, 2))
        assert all(p["cid"] != logged[0]["png_sha256"] for p in ledger.active_pins("image"))

    rarity = collection_status(col)["rarity"]
    assert {t["trait"] for t in rarity["traits"]} == set(col.spec.prompt.traits)
    assert sorted(t["token_id"] for t in rarity["tokens"]) == [1, 2, 3, 4]

    again = run_collection(load_collection(path))
    assert (again.generated, again.pinned, again.resampled) == (0, 0, [])
    assert again.generation_skipped == 4 and pinned(path) == final
    assert len(drops(path)) == len(logged) + sum(d["guard"] != "duplicate" for d in drops(path))


@pytest.mark.slow
def test_changing_only_a_pixel_threshold_revalidates_without_resampling_what_still_passes(tmp_path: Path) -> None:
    path = write_collection(tmp_path / "thr", size=4, generator__steps=3)
    assert run_collection(load_collection(path)).complete
    before = pinned(path)
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        spreads = {t: stored_verdicts(col, ledger, [sha])[sha].metrics["spread"] for t, (sha, _) in before.items()}

    # A threshold that every stored image still passes: judged again, nothing sampled, nothing pinned.
    path = write_collection(tmp_path / "thr", size=4, generator__steps=3, guards={"min_std": 2.0})
    report = run_collection(load_collection(path))
    assert (report.generated, report.pinned, report.resampled) == (0, 0, [])
    assert pinned(path) == before
    with sqlite3.connect(path.parent / ".mintprep" / "state.db") as db:
        assert db.execute("SELECT COUNT(DISTINCT settings_key) FROM verdicts").fetchone()[0] == 2

    # A flat guard that the lowest-spread piece now fails: that piece alone is resampled.
    lowest, second = sorted(spreads.values())[:2]
    victim = min(spreads, key=spreads.get)
    path = write_collection(tmp_path / "thr", size=4, generator__steps=3,
                            guards={"min_std": (lowest + second) / 2, "min_edge_share": 1.0})
    report = run_collection(load_collection(path))
    assert report.resampled and {r["token_id"] for r in report.resampled} == {victim}
    assert all(r["guard"] == "flat" for r in report.resampled)
    assert report.generated == len(report.resampled)
    after = pinned(path)
    assert {t: v for t, v in after.items() if t != victim} == {t: v for t, v in before.items() if t != victim}
    if victim in after:
        assert after[victim] != before[victim]
    assert any(d["token_id"] == victim and d["stage"] == "validate" and d["guard"] == "flat" for d in drops(path))


@pytest.mark.slow
def test_a_piece_that_failed_every_attempt_is_retried_when_a_pixel_guard_is_loosened(tmp_path: Path) -> None:
    """Pixel thresholds are not in the generation key, so a cached failure notes the thresholds that failed it."""
    path = write_collection(tmp_path / "flat", size=2, generator__steps=3, generator__model="constant-decoder",
                            generator__max_attempts=1)
    first = run_collection(load_collection(path))
    assert {f.token_id for f in first.rejected} == {1, 2} and "flat" in first.rejected[0].reason
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:  # what was decoded is kept small, for review
        for drop in drops(path):
            thumb = load_rgb(ledger.objects.get(drop["thumbnail_sha256"]))
            assert thumb.shape == (64, 64, 3) and thumb.std() < 1, "the flat grey the guard saw"
    again = run_collection(load_collection(path))
    assert again.generated == 0 and again.generation_skipped == 2
    path = write_collection(tmp_path / "flat", size=2, generator__steps=3, generator__model="constant-decoder",
                            generator__max_attempts=1, guards={"min_std": 0.0, "min_edge_share": 0.0})
    loosened = run_collection(load_collection(path))
    assert sorted(pinned(path)) == [1]
    # A decoder that ignores its input draws token 2 the same whatever the seed: resampled until the budget
    # (max_attempts x (1 + max_resamples) attempts) is spent, then rejected as the duplicate it is.
    assert [r["token_id"] for r in loosened.resampled] == [2, 2, 2]
    assert loosened.generated == 2 + 3
    assert [f.token_id for f in loosened.rejected] == [2] and "near-duplicate of token 1" in loosened.rejected[0].reason
    assert run_collection(load_collection(path)).generated == 0
