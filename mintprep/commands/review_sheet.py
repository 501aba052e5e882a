"""The driver behind `mintprep review`: the review gathered from the ledger (commands.review), rendered page by page
(commands.review_pages) and written beside the collection, one page held in memory at a time."""

from __future__ import annotations

from pathlib import Path

from mintprep.base.durable_files import write_atomic
from mintprep.collection.config import Collection
from mintprep.commands.review import Review, gather_review
from mintprep.commands.review_pages import review_files


def write_review(col: Collection, target: Path, per_page: int) -> tuple[Review, list[str]]:
    """The review of `col` written at `target` and its pages in `<stem>-pages/` (one page held at a time), pages of
    an earlier, longer sheet removed; the review and the files written, relative to `target`'s folder."""
    review = gather_review(col)
    files = []
    for name, text in review_files(review, stem=target.stem, per_page=per_page):
        write_atomic(target.parent / name, text.encode(), for_people=True)
        files.append(name)
    folder = target.parent / f"{target.stem}-pages"
    if folder.is_dir():
        for stale in folder.glob("*-*.html"):
            if f"{folder.name}/{stale.name}" not in files:
                stale.unlink()
    return review, files
