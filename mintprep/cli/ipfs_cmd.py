"""`mintprep cid` and `mintprep export-car`: kubo's `ipfs add --only-hash` and `ipfs dag export`, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mintprep.cli.app import app, console, output_file, print_json
from mintprep.ipfs import PROFILE_NAMES

PROFILE_HELP = f"Start from a profile ({', '.join(PROFILE_NAMES)}); without one, kubo's defaults (CIDv0) as `ipfs add`."
CidVersion = typer.Option(None, "--cid-version", help="0 or 1; 1 implies --raw-leaves unless given, as in kubo.")
RawLeaves = typer.Option(None, "--raw-leaves/--no-raw-leaves", help="Leaves as raw blocks.")
Chunker = typer.Option(None, "--chunker", help="size-N (bytes per chunk).")
Wrap = typer.Option(False, "--wrap-with-directory", "-w", help="Wrap in a directory named after PATH.")
Hidden = typer.Option(False, "--hidden", "-H", help="Include dotfiles inside directories.")
ProfileName = typer.Option(None, "--profile", help=PROFILE_HELP)
Json = typer.Option(False, "--json", help="Print a JSON object instead of the bare CID.")


@app.command("cid")
def cid_command(
    path: Path = typer.Argument(..., help="File or directory (directories are added recursively)."),
    cid_version: Optional[int] = CidVersion,
    raw_leaves: Optional[bool] = RawLeaves,
    chunker: Optional[str] = Chunker,
    wrap_with_directory: bool = Wrap,
    hidden: bool = Hidden,
    profile: Optional[str] = ProfileName,
    json_output: bool = Json,
) -> None:
    """Print the CID `ipfs add --only-hash -Q` prints for PATH with the same flags (streams: flat memory)."""
    from mintprep.ipfs import add_options, import_path

    settings = add_options(profile, cid_version=cid_version, raw_leaves=raw_leaves, chunker=chunker)
    dag = import_path(path, settings, hidden=hidden, wrap=wrap_with_directory)
    if json_output:
        print_json({"cid": str(dag.root), "path": str(path), "size": dag.size, "profile": settings.as_record()})
    else:
        typer.echo(str(dag.root))


@app.command("export-car")
def export_car_command(
    source: str = typer.Argument(..., help="A file or directory; or a CID when --store is given."),
    out: Path = typer.Option(..., "--out", "-o", help="The CAR file to write (replaced atomically)."),
    store: Optional[Path] = typer.Option(None, "--store", help="A collection's .mintprep dir: export SOURCE (a CID) from its local store."),
    cid_version: Optional[int] = CidVersion,
    raw_leaves: Optional[bool] = RawLeaves,
    chunker: Optional[str] = Chunker,
    wrap_with_directory: bool = Wrap,
    hidden: bool = Hidden,
    profile: Optional[str] = ProfileName,
    json_output: bool = Json,
) -> None:
    """Write a CAR v1 of SOURCE: one root, blocks in DFS order, each once."""
    from mintprep.commands import export_car_file
    from mintprep.ipfs import add_options

    output_file(out, "--out")
    settings = None if store is not None else add_options(profile, cid_version=cid_version, raw_leaves=raw_leaves,
                                                            chunker=chunker)
    root, written = export_car_file(source, out, settings, store=store, hidden=hidden, wrap=wrap_with_directory)
    if json_output:
        print_json({"root": str(root), "car": str(out), "bytes": written})
    else:
        console.print(f"wrote {out} ({written} bytes), root {root}", highlight=False)
        typer.echo(str(root))
