"""The driver behind `mintprep export-car`: a CAR v1 of a file or folder (imported as `ipfs add` would), or of a DAG
in a collection's local store, written atomically; a block the store lacks is bad input."""

from __future__ import annotations

from pathlib import Path

from mintprep.base import StateDir, UserError, write_atomic_with
from mintprep.ipfs import CID, BlockNotFound, BlockStore, Profile, import_path, write_car


def export_car_file(source: str, out: Path, settings: Profile | None, *, store: Path | None = None, hidden: bool = False,
               wrap: bool = False) -> tuple[CID, int]:
    """(root, bytes written) of the CAR of `source` at `out`: a path imported with `settings`, or, with `store` (a
    collection's .mintprep folder), a CID read from its local IPFS store (`settings` unused: None)."""
    if store is not None:
        root = CID.parse(source)
        blocks = BlockStore(StateDir(store).ipfs).iter_dag(root)
    else:
        assert settings is not None
        dag = import_path(Path(source), settings, hidden=hidden, wrap=wrap)
        root, blocks = dag.root, dag.blocks
    try:
        return root, write_atomic_with(out, lambda handle: write_car([root], blocks, handle), for_people=True)
    except BlockNotFound as exc:
        raise UserError(f"{source}: block {exc.args[0]} is not in the local store") from None
