"""`mintprep export COLLECTION.yaml -o DIR [--names json|extensionless] [--json]`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from mintprep.cli.app import app, console, print_json


@app.command("export")
def export(
    collection: Path = typer.Argument(..., help="the collection file (collection.yaml)"),
    out: Path = typer.Option(..., "-o", "--out", help="the folder to write (must not exist, or be empty)"),
    names: str = typer.Option("json", "--names", help="json: json/<id>.json; extensionless: json/<id> (contracts "
                              "whose tokenURI is base + id, ERC721A's default)"),
    json: bool = typer.Option(False, "--json", help="print the export as JSON on stdout"),
) -> None:
    """Write the collection as a HashLips-style folder: images/<id>.png, json/<id>.json, json/_metadata.json."""
    from mintprep.collection import load_collection
    from mintprep.commands import export_collection

    report = export_collection(load_collection(collection), out, names=names)  # type: ignore[arg-type]
    if json:
        print_json(report.to_json())
        return
    console.print(Text(f"exported {len(report.tokens)} tokens ({report.files} files) to {report.out}"),
                  highlight=False)
    if report.broken:
        from mintprep.base import summarise_ids

        replaceable = sorted(set(report.broken) - set(report.broken_minted))
        advice = []
        if replaceable:
            advice.append(f"`mintprep audit --repair` replaces token(s) {summarise_ids(replaceable)}, then export again")
        if report.broken_minted:  # repair never touches a sold token unless asked
            advice.append(f"token(s) {summarise_ids(report.broken_minted)} minted: kept as collectors hold them "
                          "(`--include-minted` replaces what they own)")
        console.print(Text(f"warning: exported as published, the images of token(s) {summarise_ids(report.broken)} fail "
                           "today's guards (broken); `mintprep audit` shows why; " + "; ".join(advice), "yellow"),
                      highlight=False)
