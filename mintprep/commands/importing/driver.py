"""`mintprep import`'s driver: the source parsed, the collection checked to be importable (a fresh ledger, or one
this same source filled), the source's reader chosen by its kind, and what it yields recorded (or, for a dry
run, only read)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mintprep.base import NoProgress, ProgressSink, UserError
from mintprep.collection import Collection
from mintprep.commands.importing.contract import read_contract
from mintprep.commands.importing.folder import read_folder
from mintprep.commands.importing.ipfs_root import block_reader, read_ipfs_root
from mintprep.commands.importing.recording import JOURNAL_KIND, record
from mintprep.commands.importing.tokens import ImportPlan, Source, TokenRead, require_minted
from mintprep.ipfs import ipfs_path
from mintprep.state import Ledger, Workspace

ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


def parse_source(text: str, cwd: Path) -> Source:
    """A folder is read relative to `cwd` (the shell's current directory), as every command line tool does."""
    if ADDRESS.match(text):
        return Source("contract", text)
    if ipfs_path(text) is not None:
        return Source("ipfs", text)
    folder = (cwd / Path(text).expanduser()).resolve()
    if folder.is_dir():
        return Source("folder", str(folder))
    raise UserError(f"--from {text!r}: expected a contract address (0x…), an ipfs:// metadata root, or a folder "
                    "of images and metadata")


def import_collection(col: Collection, source_text: str, *, gateways: tuple[str, ...] = (), dry_run: bool = False,
                      progress: ProgressSink | None = None, cwd: Path | None = None) -> ImportPlan:
    """Read and verify everything the source publishes; unless `dry_run`, pin it and record it in the ledger.

    `gateways` default to the collection's `ipfs.gateways` (tried in turn), else its `ipfs.gateway`."""
    source = parse_source(source_text, cwd or Path.cwd())
    gateways = gateways or col.spec.ipfs.read_gateways()
    with _workspace(col, dry_run, progress) as ws:
        _require_importable(ws, source)
        plan = ImportPlan(source)
        fetch = block_reader(ws, gateways, plan)
        reads: Iterable[TokenRead]
        match source.kind:  # the one place that reads by the kind of source
            case "contract":  # through its family: its base URI's directory, or each token's own URI
                reads = read_contract(ws, plan, fetch)
            case "ipfs":
                reads = read_ipfs_root(ws, source.text, plan, fetch=fetch)
            case "folder":
                reads = read_folder(ws, Path(source.text), plan)
        if dry_run:
            for _ in reads:
                plan.blocks.clear()
            require_minted(plan)
        else:
            record(ws, plan, reads, fetch)
    return plan


def _require_importable(ws: Workspace, source: Source) -> None:
    """A fresh ledger, or one whose published state came from this same source (an import to finish or update)."""
    ledger = ws.ledger
    if ledger.current_manifest() is None:
        return
    journal = ledger.open_journal(JOURNAL_KIND) or ledger.last_journal(JOURNAL_KIND)
    earlier = {journal.plan["source"]} if journal else ledger.import_sources()
    if earlier == {source.text}:
        return
    named = f" (imported from {', '.join(sorted(earlier))})" if earlier else ""
    raise UserError(f"{ws.col.path}: this collection already has pinned metadata{named}; import adopts a collection "
                    "into a fresh ledger, or imports again from the same source")


@contextmanager
def _workspace(col: Collection, dry_run: bool, progress: ProgressSink | None) -> Iterator[Workspace]:
    """The collection's workspace; for a dry run of a collection without a ledger, a throwaway ledger (a dry run
    writes nothing beside the collection file) over the collection's own block store."""
    if dry_run and not col.state.has_ledger():
        with tempfile.TemporaryDirectory(prefix="mintprep-import-") as scratch, Ledger.open(Path(scratch)) as ledger:
            workspace = Workspace(col, ledger, progress or NoProgress())
            yield workspace
        return
    with Workspace.open(col, readonly=dry_run, progress=progress) as workspace:
        yield workspace
