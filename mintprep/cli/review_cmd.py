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
    json_output: bool = typer.Option(False, "--json", help="print what the page shows as JSON on stdout"),
) -> None:
    """One self-contained HTML page: every token (image, traits, rarity rank, guard metrics, pin state), every
    rejected attempt, near-duplicate pairs side by side, the trait table. Reads the ledger only."""
    from mintprep.collection.config import load_collection
    from mintprep.state.objects import write_atomic
    from mintprep.commands.review import gather_review, render_review

    if out is not None:
        output_file(out, "--out")
    col = load_collection(collection)
    review = gather_review(col)
    target = out if out is not None else col.base_dir / "review.html"
    write_atomic(target, render_review(review).encode(), for_people=True)
    if json_output:
        print_json({"path": str(target), **review.to_json()})
    else:
        c = review.counts
        console.print(f"wrote {target}: {c['tokens']} tokens ({c['pinned']} pinned, {c['rejected']} rejected), "
                      f"{c['rejected_attempts']} rejected attempts, {c['duplicates']} near-duplicates", highlight=False,
                      markup=False)
