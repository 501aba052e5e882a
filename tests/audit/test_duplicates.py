"""Near-duplicates of an imported layered collection (HashLips-style folder, drawn by tests/support/layered.py):
every planted re-encoding (JPEG round trip, 1-pixel resize, +2% brightness, a few changed pixels) is reported
once, on the later token, in `run`, the drop log, `audit` and `review`; no layer variant (another hat or eyes on
the same base) is flagged; `audit --repair` replaces the unminted member; a screening round after an unrelated
resample takes no decision back. Real tiny model, real SQLite, real files, the CLI in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
from mintprep.generate import request as request_module
from mintprep.state.ledger import Ledger
from tests.conftest import write_collection
from tests.support.layered import BACKGROUNDS, EYES, FIGURES, HATS, export_folder, layered_collection

LAYERED = layered_collection()
IMPORTED = len(LAYERED.images)
SIZE = IMPORTED + 2  # two generated tokens after the imported ones
GENERATED_PROMPT = "a robot with a crown on fog"


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def layered_yaml(folder: Path, size: int, **more_traits: dict[str, float]) -> Path:
    traits = {"background": {b: 1 for b in BACKGROUNDS}, "figure": {f: 1 for f in FIGURES},
              "hat": {h: 1 for h in HATS}, "eyes": {e: 1 for e in EYES}, **more_traits}
    return write_collection(folder, size=size, generator__steps=3, generator__upscale=1,
                            prompt={"template": "a {figure} with a {hat} hat and {eyes} eyes on {background}",
                                    "negative": "blurry", "traits": traits},
                            pieces={IMPORTED + 1: {"prompt": GENERATED_PROMPT},
                                    IMPORTED + 2: {"prompt": GENERATED_PROMPT + "."}} if size == SIZE else {})


def drops(path: Path) -> list[dict]:
    log = path.parent / ".mintprep" / "drops.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The layered folder imported into a collection two tokens larger; the last generated token's first attempt
    samples with the one before's seed (same prompt but a full stop), so `run` must resample it once: a second
    screening round over the imported pieces."""
    real = request_module.attempt_seed

    def colliding(collection_seed: int, token_id: int, attempt: int) -> int:
        return real(collection_seed, SIZE - 1 if (token_id, attempt) == (SIZE, 0) else token_id, attempt)

    monkeypatch.setattr("mintprep.generate.generator.attempt_seed", colliding)
    folder = export_folder(tmp_path / "export", LAYERED.traits, LAYERED.images)
    path = layered_yaml(tmp_path / "col", SIZE)
    code, result = cli("import", str(path), "--from", str(folder))
    # exit 1 names the ids the folder lacks: the two `run` generates
    assert code == 1 and len(result["imported"]) == IMPORTED and sorted(result["skipped"]) == [str(SIZE - 1),
                                                                                                str(SIZE)], result
    return path


@pytest.mark.slow
def test_each_planted_pair_is_decided_once_reported_everywhere_and_repaired(imported: Path):
    planted = {copy: original for copy, (original, _) in LAYERED.duplicates.items()}
    report = run_collection(load_collection(imported))
    assert [(r["token_id"], r["collides_with"]) for r in report.resampled] == [(SIZE, SIZE - 1)], \
        "the generated near-copy is resampled: a second screening round"
    rejected = {f.token_id: f.reason for f in report.rejected}
    assert sorted(rejected) == sorted(planted), "every planted copy, no original, no layer variant"
    for copy, original in planted.items():
        assert f"near-duplicate of token {original}:" in rejected[copy]
        assert f"`mintprep audit --repair` replaces token {copy} with a new image" in rejected[copy]
        assert f"token {original} stays" in rejected[copy]
    assert report.kept_published == sorted(planted), "imported copies stay published until the repair"

    logged = [(d["token_id"], d["collides_with"]) for d in drops(imported) if d["guard"] == "duplicate"]
    assert sorted(logged) == sorted([*planted.items(), (SIZE, SIZE - 1)]), "one line per decision"
    assert all(d["imported"] for d in drops(imported) if d["token_id"] in planted)

    again = run_collection(load_collection(imported))
    assert sorted(f.token_id for f in again.rejected) == sorted(planted), "the same decisions, on the same side"
    assert len(drops(imported)) == len(logged), "a repeated decision is not logged again"

    code, audit = cli("audit", str(imported))
    duplicates = {p["token_id"]: p["evidence"] for p in audit["problems"] if p["kind"] == "near-duplicate"}
    assert code == 1 and {t: e["collides_with"] for t, e in duplicates.items()} == planted
    assert all(e["metrics"]["phash_distance"] <= 6 and e["metrics"]["tile_diff"] <= 6 for e in duplicates.values())
    assert [p["kind"] for p in audit["problems"]] == ["near-duplicate"] * len(planted)

    code, review = cli("review", str(imported), "-o", str(imported.parent / "review.html"))
    pairs = {(d["token_id"], d["collides_with"]) for d in review["rejected_attempts"] if d["guard"] == "duplicate"}
    assert code == 0 and pairs == {*planted.items(), (SIZE, SIZE - 1)}
    assert review["counts"]["duplicates"] == len(pairs)

    code, dry = cli("audit", str(imported), "--repair", "--dry-run")
    assert code == 1 and sorted(t["token_id"] for t in dry["plan"]["tokens"]) == sorted(planted)
    assert all(t["action"] == "regenerate" for t in dry["plan"]["tokens"])

    col = load_collection(imported)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        before = {t: p.image_cid for t, p in ledger.pieces().items()}
    code, repaired = cli("audit", str(imported), "--repair")
    assert code == 0 and repaired["after"]["ok"], repaired["after"]
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        after = {t: p.image_cid for t, p in ledger.pieces().items()}
    assert {t for t in before if before[t] != after[t]} == set(planted), "only the copies were replaced"


def test_a_minted_token_is_never_the_duplicate_and_the_audit_says_why_it_stays(imported: Path):
    """Minted ids run 1..totalMinted, so a later minted copy (here: copies taken as minted) wins over an unminted
    original; two minted members: the later is reported, and a repair leaves it unless --include-minted."""
    from mintprep.stages.screen import judge

    col = load_collection(imported)
    copies = sorted(LAYERED.duplicates)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        images = {t: p.png_sha256 for t, p in ledger.pieces().items()}
        decided = judge(col, ledger, images, minted=set(copies), record=False)
    assert {r.token_id: r.collides_with for r in decided} == {
        original: copy for copy, (original, _) in LAYERED.duplicates.items()}, "the unminted original is replaced"

    from mintprep.commands.audit import AuditReport
    from mintprep.commands.repair import plan_repair
    from mintprep.state.workspace import Workspace

    with Workspace.open(col, readonly=True) as ws:
        report = AuditReport(minted=list(range(1, SIZE)))
        for r in judge(col, ws.ledger, images, minted=set(report.minted), record=False):
            report.add(r.token_id, "near-duplicate", collides_with=r.collides_with, **r.metrics)
        plan = plan_repair(ws, report)
    assert plan.tokens == [] and plan.minted_skipped == copies
    assert all("near-duplicate of token" in plan.minted_why[str(t)] and "--include-minted" in plan.minted_why[str(t)]
               for t in copies)
