"""`review` on an imported collection of real-size art: the near-duplicate pairs `audit` names (the drop log has
none: only `run` writes it), thumbnails encoded at zlib's fastest level and kept by image hash for the next
review, and no link to a page that is not written."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.commands import review as review_module
from mintprep.commands.audit import audit_collection
from mintprep.commands.review import gather_review
from mintprep.commands.review_pages import PER_PAGE, review_files
from mintprep.base import StateDir
from tests.support.real_art import imported_collection

SIZE = 7
COPY, ORIGINAL = 7, 2


def render_review(review, per_page: int = PER_PAGE) -> dict[str, str]:
    """Every file of the sheet: relative path -> HTML."""
    return dict(review_files(review, per_page=per_page))


def idat(png: bytes) -> bytes:
    """The first IDAT chunk's data (the zlib stream's start)."""
    at = png.index(b"IDAT")
    return png[at + 4: at + 4 + int.from_bytes(png[at - 4:at], "big")]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thumbnails `review` makes from here on (the real function, counted)."""
    calls: list[str] = []
    real = review_module.thumbnail

    def counted(png: bytes, upscale: int) -> bytes:
        calls.append("made")
        return real(png, upscale)

    monkeypatch.setattr(review_module, "thumbnail", counted)
    return calls


def test_review_shows_the_pairs_audit_names_and_keeps_fast_thumbnails(tmp_path: Path, made: list[str]):
    path = imported_collection(tmp_path, SIZE, {COPY: ORIGINAL})
    col = load_collection(path)
    audited = {(p.token_id, p.evidence["collides_with"]) for p in audit_collection(col, check_chain=False).problems
               if p.kind == "near-duplicate"}
    review = gather_review(col)
    assert audited == {(COPY, ORIGINAL)}
    assert {(d.token_id, d.collides_with) for d in review.drops if d.guard == "duplicate"} == audited
    assert review.counts["duplicates"] == 1

    files = render_review(review)
    assert made == ["made"] * SIZE  # each thumbnail made once, though the pair shows two of them again
    pairs = re.findall(r'class="pair" data-token="(\d+)" data-collides-with="(\d+)"', files["review.html"])
    assert pairs == [(str(COPY), str(ORIGINAL))]
    thumbnails = sorted(StateDir(path.parent / ".mintprep").thumbnails.iterdir())
    assert len(thumbnails) == SIZE
    for thumbnail in thumbnails:
        data = thumbnail.read_bytes()
        assert idat(data)[:2] == b"\x78\x01"  # zlib header: the fastest level
        assert zlib.decompressobj().decompress(idat(data))  # a whole stream start, not a stub

    again = render_review(gather_review(col))
    assert made == ["made"] * SIZE, "the second review makes no thumbnail"
    assert again == files


def test_no_link_leads_to_a_page_that_is_not_written(tmp_path: Path):
    path = imported_collection(tmp_path, 3, {})
    files = render_review(gather_review(load_collection(path)), per_page=2)
    assert not any(name.endswith(("duplicates-1.html", "rejected-1.html")) for name in files)
    for name, text in files.items():
        for target in re.findall(r'href="([^"#]+)', text):
            resolved = (Path(name).parent / target).as_posix()
            resolved = re.sub(r"[^/]+/\.\./", "", resolved)
            assert resolved in files, f"{name} links to {target}, which is not written"


def test_a_thumbnail_folder_that_cannot_be_written_leaves_the_sheet_whole(tmp_path: Path, made: list[str]):
    path = imported_collection(tmp_path, 3, {})
    StateDir(path.parent / ".mintprep").thumbnails.write_bytes(b"not a folder")  # mkdir and every write there fail
    first = render_review(gather_review(load_collection(path)))
    once = len(made)  # the summary's cards ask again for what their page shows: nothing kept, so made again
    assert once >= 3 and first["review.html"].count('class="card"') == 3
    assert render_review(gather_review(load_collection(path))) == first and len(made) == 2 * once
