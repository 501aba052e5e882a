"""`mintprep import COLLECTION.yaml --from SOURCE`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from mintprep.base import summarise_ids
from mintprep.cli.app import app, console, print_json

SHOWN_SKIPPED = 20  # tokens named one per line with why; past them, the rest summarised


@app.command("import")
def import_(
    collection: Path = typer.Argument(..., help="the collection file (collection.yaml)"),
    source: str = typer.Option(..., "--from", help="a contract address (0x…), an ipfs:// metadata root, or a folder "
                               "of images and metadata (relative to the current directory)"),
    gateway: list[str] = typer.Option([], "--gateway", help="a trustless gateway to read blocks from (repeatable; "
                                      "every block is checked against its CID; default: ipfs.gateways, else "
                                      "ipfs.gateway)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="show what would be imported, change nothing"),
    json: bool = typer.Option(False, "--json", help="print the import as JSON on stdout"),
) -> None:
    """Adopt a collection made elsewhere: verify and pin its images and metadata, record them as imported pieces.
    Exit 0 when every token was imported, 1 when some were skipped (each named), 2 on bad input."""
    from mintprep.commands import import_collection
    from mintprep.collection import load_collection
    from mintprep.base import RichProgress

    col = load_collection(collection)
    with RichProgress(console) as progress:
        plan = import_collection(col, source, gateways=tuple(gateway), dry_run=dry_run, progress=progress)
    code = 1 if plan.skipped else 0  # a token not imported is named and must not pass for a clean import
    if json:
        print_json(dict(plan.to_json(), dry_run=dry_run, exit_code=code))
        raise typer.Exit(code)
    verb = "would import" if dry_run else "imported"
    # The source and its reasons quote a collection made elsewhere: printed as text, never as markup.
    console.print(Text(f"{verb} {len(plan.tokens)} tokens from {plan.source.text}"
                       + (f" (metadata root {plan.metadata_root})" if plan.metadata_root else "")), highlight=False)
    if plan.profile:
        from mintprep.chain import roles_text
        from mintprep.collection import Profile

        profile = Profile(**plan.profile)
        console.print(Text(f"contract {plan.contract}: {profile.family} (from {profile.source}"
                           + (f", implementation {profile.implementation}" if profile.implementation else "")
                           + f"); roles: {roles_text(profile)}"), highlight=False)
    if plan.minted:
        console.print(f"minted on chain: {len(plan.minted)} (contract {plan.contract})", highlight=False)
    skipped = sorted(plan.skipped.items())
    for token_id, why in skipped[:SHOWN_SKIPPED]:
        console.print(Text.assemble((f"token {token_id} not imported", "yellow"),
                                    f": {why} (fix the source and import again, or `mintprep run` generates "
                                    "it)"), highlight=False)
    if len(skipped) > SHOWN_SKIPPED:
        console.print(Text(f"... and {len(skipped) - SHOWN_SKIPPED} more not imported: "
                           f"{summarise_ids(t for t, _ in skipped[SHOWN_SKIPPED:])} (--json names each)"))
    raise typer.Exit(code)
