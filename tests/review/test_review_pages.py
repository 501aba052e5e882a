"""The paginated review sheet in real Chromium (Playwright, Debian's /usr/bin/chromium) with every request but the
opened file refused: each page of cards, pairs and rejected attempts shows all its images from the file itself;
the search (an inline script allowed by its CSP hash) finds a token by id and by trait value and links to the page
that shows it. The collection: the layered folder of tests/support/layered.py imported and screened (its planted
re-encodings rejected as near-duplicates), at 5 cards a page so there are several."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
from tests.audit.test_duplicates import cli, layered_yaml
from tests.support.layered import export_folder, layered_collection

LAYERED = layered_collection()
SIZE = len(LAYERED.images)
PER_PAGE = 5


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    folder = export_folder(tmp_path / "export", LAYERED.traits, LAYERED.images)
    path = layered_yaml(tmp_path / "col", SIZE)
    assert cli("import", str(path), "--from", str(folder))[0] == 0
    assert sorted(f.token_id for f in run_collection(load_collection(path)).rejected) == sorted(LAYERED.duplicates)
    out = tmp_path / "sheet" / "review.html"
    code, review = cli("review", str(path), "-o", str(out), "--per-page", str(PER_PAGE))
    assert code == 0 and review["counts"]["kept"] == len(LAYERED.duplicates)
    return out


def offline_page(browser, requests: list[str]):
    """A page whose every request but file:// is aborted (and recorded either way)."""
    page = browser.new_page()

    def handle(route) -> None:
        requests.append(route.request.url)
        route.continue_() if route.request.url.startswith("file://") else route.abort()

    page.route("**/*", handle)
    return page


def test_every_page_loads_its_images_from_itself_and_the_search_links_to_them(sheet: Path, browser):
    pages = sorted((sheet.parent / "review-pages").glob("*.html"))
    assert len([p for p in pages if p.name.startswith("tokens-")]) == math.ceil(SIZE / PER_PAGE)
    assert {p.name for p in pages} >= {"duplicates-1.html", "rejected-1.html"}
    seen_cards, seen_pairs = set(), set()
    for file in [sheet, *pages]:
        requests: list[str] = []
        page = offline_page(browser, requests)
        page.goto(file.as_uri())
        images = page.query_selector_all("img")
        assert images, f"{file.name} shows images"
        for img in images:
            assert img.get_attribute("src").startswith("data:image/png;base64,")
            assert page.evaluate("img => img.complete && img.naturalWidth > 0", img), file.name
        assert requests == [file.as_uri()], f"{file.name} asked for nothing but itself"
        if file != sheet:
            seen_cards |= {int(c.get_attribute("data-token")) for c in page.query_selector_all(".card")}
            seen_pairs |= {(int(p.get_attribute("data-token")), int(p.get_attribute("data-collides-with")))
                           for p in page.query_selector_all(".pair")}
        page.close()
    assert seen_cards == set(range(1, SIZE + 1)), "every token is on some page"
    assert seen_pairs == {(copy, original) for copy, (original, _) in LAYERED.duplicates.items()}

    requests: list[str] = []
    page = offline_page(browser, requests)
    page.goto(sheet.as_uri())
    page.fill("#search input[name=id]", "17")
    hits = page.query_selector_all("#results a.hit")
    assert [h.get_attribute("data-token") for h in hits] == ["17"]
    assert hits[0].get_attribute("href") == f"review-pages/tokens-{(17 - 1) // PER_PAGE + 1}.html#token-17"
    page.fill("#search input[name=id]", "")
    page.select_option('#search select[data-trait="hat"]', "crown")
    wanted = sorted(t for t, v in LAYERED.traits.items() if v["hat"] == "crown")
    assert sorted(int(h.get_attribute("data-token")) for h in page.query_selector_all("#results a.hit")) == wanted
    assert page.inner_text("#hit-count") == f"{len(wanted)} matching"
    page.select_option("#search select[name=status]", "kept")
    kept = [int(h.get_attribute("data-token")) for h in page.query_selector_all("#results a.hit")]
    assert kept == [t for t in wanted if t in LAYERED.duplicates]
    page.select_option('#search select[data-trait="hat"]', "")
    target = page.query_selector("#results a.hit")
    target.click()
    page.wait_for_load_state()
    token = target_id = json.loads(page.evaluate("location.hash.slice(7)"))
    assert page.query_selector(f"#token-{target_id}") is not None and token in LAYERED.duplicates
    assert all(url.startswith("file://") for url in requests), requests
    page.close()
