"""`mintprep review COLLECTION.yaml [-o review.html] [--json]`: the sheet a creator looks at before deploying."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mintprep.cli.app import app, console, output_file, print_json


@app.command("review")
def review_command(
    collection: Path = typer.Argument(..., help="the collection file (collection.yaml)"),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="where to write the page (default: review.html "
                                       "beside the collection file)"),
    per_page: int = typer.Option(50, "--per-page", min=1, max=10_000, help="token cards (and pairs, rejected "
                                 "attempts) per page; the first of each (as many as fit) are in the summary file"),
    json_output: bool = typer.Option(False, "--json", help="print what the page shows as JSON on stdout"),
) -> None:
    """A self-contained HTML sheet (OUT, and its pages in OUT-pages/): every token (image, traits, rarity rank,
    guard metrics, pin state), every rejected attempt, near-duplicate pairs side by side, the trait table, a search
    by id and trait. Reads the ledger only."""
    from mintprep.collection import load_collection
    from mintprep.commands import gather_review, write_review

    if out is not None:
        output_file(out, "--out")
    col = load_collection(collection)
    target = out if out is not None else col.base_dir / "review.html"
    review = gather_review(col)
    files = write_review(review, target, per_page)
    if json_output:
        print_json({"path": str(target), "pages": [str(target.parent / n) for n in files][1:], **review.to_json()})
    else:
        c = review.counts
        console.print(f"wrote {target} (+{len(files) - 1} pages): {c['tokens']} tokens ({c['pinned']} pinned, "
                      f"{c['kept']} kept as published, {c['rejected']} rejected), "
                      f"{c['rejected_attempts']} rejected attempts, {c['duplicates']} near-duplicates", highlight=False,
                      markup=False)
