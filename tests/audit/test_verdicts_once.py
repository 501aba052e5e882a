"""A pixel-guard verdict is computed once per (image bytes, guard settings) and reused by every later command.

`import` judges each image as it stores it (verdicts in the ledger); `audit` and `review`, which open the ledger
read-only, keep what they judge in the verdict cache beside it (mintprep.state.verdict_cache), and an audit judges
each image once, its near-duplicate hashes coming from the same pass. Counted by wrapping the real guard function
(`pixel_metrics`, which every judgement calls) with a counter; the art is real-size layered PNGs with grain and a
planted near-copy (tests.support.real_art)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.commands.audit import audit_collection
from mintprep.commands.review import gather_review
from mintprep.guards import image_guards
from mintprep.guards.image_guards import pixel_metrics
from mintprep.state.verdict_cache import FILE_NAME
from tests.support.real_art import imported_collection

SIZE = 6
COPY, ORIGINAL = 6, 3  # token 6 is token 3 at +2% brightness


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    """A HashLips folder of SIZE real-size pieces imported into a fresh collection; the collection file's path."""
    return imported_collection(tmp_path, SIZE, {COPY: ORIGINAL})


@pytest.fixture
def judgements(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per image the pixel guards judge from here on."""
    calls: list[int] = []

    def counted(rgb, guards):
        calls.append(1)
        return pixel_metrics(rgb, guards)

    monkeypatch.setattr(image_guards, "pixel_metrics", counted)
    return calls


def problems(report) -> list[tuple]:
    return sorted((p.token_id, p.kind, p.evidence.get("collides_with")) for p in report.problems)


def ledger_verdicts(path: Path) -> int:
    with sqlite3.connect(path.parent / ".mintprep" / "state.db") as db:
        return db.execute("SELECT count(*) FROM verdicts").fetchone()[0]


def forget_ledger_verdicts(path: Path) -> None:
    """A ledger from before import recorded verdicts."""
    with sqlite3.connect(path.parent / ".mintprep" / "state.db") as db:
        db.execute("DELETE FROM verdicts")


def test_import_records_every_verdict_and_audit_and_review_judge_nothing_again(imported: Path,
                                                                              judgements: list[int]):
    assert ledger_verdicts(imported) == SIZE
    col = load_collection(imported)
    report = audit_collection(col, check_chain=False)
    assert problems(report) == [(COPY, "near-duplicate", ORIGINAL)]
    gather_review(col)
    assert judgements == []


def test_an_import_run_again_judges_no_image_it_judged(imported: Path, judgements: list[int]):
    """An import run again (resumed, or the same folder) reads every token again; the images whose verdicts it
    recorded are not judged again, while a new image is."""
    from mintprep.commands.importing import import_collection
    from tests.support.real_art import art_png

    folder = imported.parent.parent / "export"
    import_collection(load_collection(imported), str(folder))
    assert judgements == [] and ledger_verdicts(imported) == SIZE
    (folder / "images" / "2.png").write_bytes(art_png(SIZE + 40, 256))  # another piece's art for token 2
    import_collection(load_collection(imported), str(folder))
    assert len(judgements) == 1 and ledger_verdicts(imported) == SIZE + 1


def test_audit_judges_each_image_once_and_a_second_audit_none(imported: Path, judgements: list[int]):
    forget_ledger_verdicts(imported)
    col = load_collection(imported)
    first = audit_collection(col, check_chain=False)
    assert len(judgements) == SIZE  # guards and near-duplicate hashes from one pass (it was 2 per image)
    assert problems(first) == [(COPY, "near-duplicate", ORIGINAL)]
    assert "verdict_cache" not in first.checked
    with sqlite3.connect(imported.parent / ".mintprep" / FILE_NAME) as cache:
        assert cache.execute("SELECT count(*) FROM verdicts").fetchone()[0] == SIZE
    assert ledger_verdicts(imported) == 0  # the ledger itself is not written by a read-only command

    second = audit_collection(col, check_chain=False)
    assert len(judgements) == SIZE
    assert problems(second) == problems(first) and second.warnings == first.warnings
    gather_review(col)
    assert len(judgements) == SIZE


def test_an_unwritable_cache_is_named_and_the_audit_still_judges_each_image_once(imported: Path,
                                                                                 judgements: list[int]):
    forget_ledger_verdicts(imported)
    (imported.parent / ".mintprep" / FILE_NAME).mkdir()  # no SQLite file can be opened there
    report = audit_collection(load_collection(imported), check_chain=False)
    assert len(judgements) == SIZE
    assert problems(report) == [(COPY, "near-duplicate", ORIGINAL)]
    assert FILE_NAME in report.checked["verdict_cache"] and "not written" in report.checked["verdict_cache"]
