"""An imported collection's rarity, trait check, status, review and page use what its metadata publishes.

The layered folder (tests/support/layered.py) is imported with one extra trait skewed on purpose (every token
`aura: gold` where the yaml weighs gold, silver and none equally). Counts and OpenRarity information-content
ranks are computed here from the published JSON files alone, as OpenRarity defines them (score = sum over traits
of -log2(count / n), over the collection's entropy; ties share a rank), not with mintprep's functions."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

from mintprep.collection.config import load_collection
from mintprep.state.ledger import Ledger
from tests.audit.test_duplicates import cli, layered_yaml
from tests.support.layered import export_folder, layered_collection

LAYERED = layered_collection()
SIZE = len(LAYERED.images)


def openrarity_ranks(documents: dict[int, dict]) -> dict[int, int]:
    n = len(documents)
    pairs = {t: [(a["trait_type"], a["value"]) for a in d["attributes"]] for t, d in documents.items()}
    counts = Counter(pair for token in pairs.values() for pair in token)
    entropy = -sum(c / n * math.log2(c / n) for c in counts.values())
    scores = {t: sum(-math.log2(counts[p] / n) for p in token) / entropy for t, token in pairs.items()}
    return {t: 1 + sum(1 for other in scores.values() if other > scores[t] + 1e-9) for t in scores}


def test_rarity_status_review_and_page_of_an_import_follow_its_published_metadata(tmp_path: Path):
    traits = {t: {**v, "aura": "gold"} for t, v in LAYERED.traits.items()}
    folder = export_folder(tmp_path / "export", traits, LAYERED.images)
    documents = {t: json.loads((folder / f"{t}.json").read_text()) for t in traits}
    path = layered_yaml(tmp_path / "col", SIZE, aura={"gold": 1, "silver": 1, "none": 1})
    assert cli("import", str(path), "--from", str(folder))[0] == 0

    code, status = cli("status", str(path))
    rarity = status["rarity"]
    assert code == 0 and rarity["traits"] == [] and rarity["flagged"] == [], "nothing was drawn: no draw is wrong"
    published = {fit["trait"]: fit for fit in rarity["published"]}
    for trait in ("background", "figure", "hat", "eyes", "aura"):
        want = Counter(a["value"] for d in documents.values() for a in d["attributes"] if a["trait_type"] == trait)
        assert {v: c for v, c in published[trait]["counts"].items() if c} == dict(want), trait
    assert rarity["published_departs"] == ["aura"] and published["aura"]["p_value"] < 1e-9
    assert {t["token_id"]: t["rank"] for t in rarity["tokens"]} == openrarity_ranks(documents)

    code, review = cli("review", str(path), "-o", str(tmp_path / "review.html"), "--per-page", "10")
    assert code == 0
    for token in review["tokens"]:
        document = documents[token["token_id"]]
        assert token["name"] == document["name"] and token["imported"]
        assert token["traits"] == {a["trait_type"]: a["value"] for a in document["attributes"]}
    sheet = (tmp_path / "review.html").read_text()
    assert "draws look wrong" not in sheet and 'id=published-departs' in sheet and "aura" in sheet

    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest().manifest
    assert {t.token_id: (t.name, t.attributes) for t in manifest.tokens} == {
        t: (d["name"], d["attributes"]) for t, d in documents.items()}, "what the page's gallery is built from"
