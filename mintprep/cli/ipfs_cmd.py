"""`mintprep cid` and `mintprep export-car`: kubo's `ipfs add --only-hash` and `ipfs dag export`, offline."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable
from typing import BinaryIO, Optional

import typer

from mintprep.cli.app import app, console, output_file, print_json
from mintprep.base.errors import UserError
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
    from mintprep.ipfs import CID, BlockStore, add_options, import_path, write_car
    from mintprep.base.state_dir import StateDir

    output_file(out, "--out")
    if store is not None:
        root = CID.parse(source)
        blocks = BlockStore(StateDir(store).ipfs).iter_dag(root)
    else:
        dag = import_path(
            Path(source),
            add_options(profile, cid_version=cid_version, raw_leaves=raw_leaves, chunker=chunker),
            hidden=hidden,
            wrap=wrap_with_directory,
        )
        root, blocks = dag.root, dag.blocks
    written = _write_atomically(out, lambda handle: write_car([root], blocks, handle), source)
    if json_output:
        print_json({"root": str(root), "car": str(out), "bytes": written})
    else:
        console.print(f"wrote {out} ({written} bytes), root {root}", highlight=False)
        typer.echo(str(root))


def _write_atomically(out: Path, write: Callable[[BinaryIO], int], source: str) -> int:
    """The CAR through a temp file beside `out`; a block missing from the store is bad input, not a traceback."""
    from mintprep.ipfs import BlockNotFound
    from mintprep.base.durable_files import write_atomic_with

    try:
        return write_atomic_with(out, write, for_people=True)
    except BlockNotFound as exc:
        raise UserError(f"{source}: block {exc.args[0]} is not in the local store") from None
