"""`mintprep run`, `mintprep status`, `mintprep schema`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.markup import escape

from mintprep.cli.app import app, console, print_json

# Each command imports what it needs when it runs: `mintprep --help` and `status` start at once.
if TYPE_CHECKING:
    from mintprep.base import RichProgress
    from mintprep.commands import RunReport

CollectionArg = typer.Argument(..., help="the collection file (collection.yaml)", exists=False)
JsonOpt = typer.Option(False, "--json", help="print a machine-readable summary on stdout")


@app.command()
def run(
    collection: Path = CollectionArg,
    json: bool = JsonOpt,
    executor: Optional[str] = typer.Option(None, "--executor", help="local | ray (overrides executor.kind)"),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster to join (implies ray)"),
    include_minted: bool = typer.Option(False, "--include-minted", help="let minted tokens change too (by "
                                        "default each keeps its live metadata and image in the next root)"),
) -> None:
    """Run every stage in order; exit 0 when every piece is pinned, 1 when some failed, 2 on bad input."""
    from mintprep.commands import run_at

    if executor not in (None, "local", "ray"):
        raise typer.BadParameter(f"must be local or ray, got {executor!r}", param_hint="--executor")

    def progress() -> "RichProgress":
        from mintprep.base import RichProgress

        return RichProgress(console)

    report = run_at(collection, include_minted=include_minted, executor=executor, ray_address=ray_address,
                    progress=progress)
    if json:
        print_json(report.to_json())
    else:
        _print_report(report)
    raise typer.Exit(report.exit_code)


def _print_report(report: "RunReport") -> None:
    from rich.table import Table

    table = Table(title="mintprep run", show_header=True)
    for column in ("stage", "done", "skipped (unchanged)", "failed"):
        table.add_column(column)
    table.add_row("generate", str(report.generated), str(report.generation_skipped), str(len(report.rejected)))
    table.add_row("pin", str(report.pinned), str(report.pin_skipped), "")
    console.print(table)
    if report.unchanged:
        console.print("nothing changed since the last run that found nothing to do: no stage ran", highlight=False)
    if report.recipes:
        from mintprep.base import summarise_ids
        from mintprep.collection import SEED_FROM_WORDS

        console.print("seeds: " + "; ".join(f"{SEED_FROM_WORDS[recipe]}: token(s) {summarise_ids(ids)}"
                                            for recipe, ids in sorted(report.recipes.items())), highlight=False)
    for failed in [*report.rejected, *report.minted_failing]:
        console.print(f"[red]token {failed.token_id} failed[/] ({escape(failed.prompt)}): {escape(failed.reason)}",
                      highlight=False)
    if report.not_imported_advice:
        console.print(f"[yellow]{escape(report.not_imported_advice)}[/]", highlight=False)
    console.print(f"metadata root: ipfs://{report.metadata_root}/   manifest: {report.manifest_cid}")
    if report.page_blocked:
        console.print(f"[red]page not built:[/] {escape(str(report.page_blocked))}")
    elif report.page:
        console.print(f"page: {escape(str(report.page))}", highlight=False)


@app.command()
def status(collection: Path = CollectionArg, json: bool = JsonOpt) -> None:
    """What is done, per stage and per piece."""
    from mintprep.commands import status_at

    info = status_at(collection)
    if json:
        print_json(info)
        return
    from mintprep.commands import attention_lines

    for line in attention_lines(info):
        console.print(line, highlight=False, markup=False)
    console.print(f"metadata root: {info['metadata_root']}  manifest: {info['manifest_cid']}  "
                  f"page: {escape(str(info['page']))}", highlight=False)
    if info["withheld"]:
        console.print("hidden drop: images and metadata stay in the local store until `mintprep reveal`")


@app.command()
def schema(json: bool = typer.Option(False, "--json", help="accepted for symmetry: the schema is JSON already")) -> None:
    """Print the JSON Schema of collection.yaml (for editor completion)."""
    from mintprep.collection import collection_schema

    print_json(collection_schema())
