"""`mintprep review` on a collection with planted failures, rendered in real Chromium (Playwright): the page shows
the counts the ledger holds, the planted rejections with their reasons, the duplicate pair, and collection text as
text; it makes no request of any kind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mintprep.collection.config import load_collection
from mintprep.generate import request as request_module
from mintprep.commands import run_collection
from mintprep.commands.status import collection_status
from tests.conftest import EXAMPLE, write_collection
from tests.page.conftest import HOSTILE_TRAIT

PROMPT = "a tulip in pixel art style, warm palette"
EXAMPLE_FLOWERS = yaml.safe_load(EXAMPLE.read_text())["prompt"]["traits"]["flower"]


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """6 tokens: 2 is first drawn as a copy of 1 (token 1's first seed, same prompt), 3 decodes through a VAE that
    really overflows fp16 (every attempt NaN), 4 carries a trait value that is an HTML injection attempt."""
    real = request_module.attempt_seed
    monkeypatch.setattr("mintprep.generate.generator.attempt_seed",
                        lambda c, t, a: real(c, 1 if (t, a) == (2, 0) else t, a))
    path = write_collection(
        tmp_path / "col", size=6, name=f"Review {HOSTILE_TRAIT}",
        generator={"kind": "tiny", "model": "fp16-overflow-vae", "steps": 3, "width": 64, "height": 64,
                   "upscale": 8, "precision": "fp32", "fallback": [], "max_attempts": 2},
        pieces={1: {"prompt": PROMPT}, 2: {"prompt": PROMPT}, 3: {"generator": {"precision": {"vae": "fp16"}}},
                4: {"traits": {"flower": HOSTILE_TRAIT}}},
        # an override names a declared value, so the hostile one is declared too (weight ~0: drawn for no token)
        prompt__traits__flower={**EXAMPLE_FLOWERS, HOSTILE_TRAIT: 1e-9})
    report = run_collection(load_collection(path))
    assert [f.token_id for f in report.rejected] == [3] and [r["token_id"] for r in report.resampled] == [2]
    return path


def test_review_sheet_renders_the_ledger_in_chromium(planted: Path, browser, artifacts_dir: Path) -> None:
    out = planted.parent / "review.html"
    result = subprocess.run([sys.executable, "-m", "mintprep", "review", str(planted), "-o", str(out), "--json"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    status = collection_status(load_collection(planted))
    drops = (planted.parent / ".mintprep" / "drops.jsonl").read_text().splitlines()
    assert data["counts"]["pinned"] == status["counts"]["pinned"] == 5
    assert data["counts"]["rejected"] == status["counts"]["rejected"] == 1
    assert data["counts"]["rejected_attempts"] == len(drops) == 3

    page = browser.new_page(viewport={"width": 1300, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    counts = {el.get_attribute("data-count"): int(el.inner_text().rsplit(":", 1)[1])
              for el in page.query_selector_all("[data-count]")}
    assert counts == {"tokens": 6, "pinned": 5, "kept": 0, "rejected": 1, "pending": 0, "rejected_attempts": 3,
                      "duplicates": 1}

    nan_rows = page.query_selector_all('#rejected ~ table tr[data-token="3"]')
    assert len(nan_rows) == 2
    for row in nan_rows:
        assert row.get_attribute("data-guard") == "decoded_nonfinite"
        assert "NaN/inf" in row.inner_text() and "generate" in row.inner_text() and '"vae": "fp16"' in row.inner_text()
    duplicate_row = page.query_selector('#rejected ~ table tr[data-token="2"]')
    assert "near-duplicate of token 1" in duplicate_row.inner_text()
    assert duplicate_row.query_selector("img") is not None, "the rejected duplicate's image was decoded: shown"
    pair = page.query_selector('.pair[data-token="2"]')
    assert len(pair.query_selector_all("img")) == 2

    cards = page.query_selector_all(".card")
    assert [c.get_attribute("data-status") for c in cards] == ["pinned", "pinned", "rejected", "pinned", "pinned",
                                                               "pinned"]
    assert cards[2].query_selector("img") is None and "no image" in cards[2].inner_text()
    assert "rarity rank" in cards[0].inner_text() and "nearest guard" in cards[0].inner_text()
    assert all(page.evaluate("img => img.complete && img.naturalWidth > 0", img)
               for img in page.query_selector_all("img"))
    assert HOSTILE_TRAIT in cards[3].inner_text() and HOSTILE_TRAIT in page.title()
    assert page.evaluate("window.__pwned") is None
    assert requests == [out.as_uri()], "no request but the page itself"
    page.screenshot(path=str(artifacts_dir / "review.png"), full_page=True)
    page.close()
