"""`mintprep status`: what the ledger says is done, per stage and per piece (read-only).

What status takes from the collection file is kept beside the ledger (`.mintprep/status-inputs.json`) so that a
status of an unchanged file reads neither YAML nor the collection's models (pydantic and the settings models were most
of its start). The file is validated by its one model (collection.config) whenever it is not the file kept: the kept
inputs are used only while the file's path and bytes and mintprep's code (every module's size and mtime) are those
they were taken under, and their rarity report only for the imported traits it was computed from. A folder nothing
may write to keeps nothing (status validates the file each time, as before); a damaged or foreign file is ignored.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mintprep.base import STATE_DIR_NAME, StateDir, content_key, keep, read_kept, summarise_ids
from mintprep.collection import check_own_folders, token_ids
from mintprep.state import IMPORTED_KEY, Ledger, PieceRecord, StatusRead, released_among, withholds

if TYPE_CHECKING:
    from mintprep.collection import Collection

# What a piece may need, in the order status lists them.
NEEDS = {
    "minted-and-broken": "minted, and its image fails today's guards: `mintprep audit` shows why; replacing it changes "
                         "what its owner holds (`audit --repair --include-minted`)",
    "broken": "every attempt was rejected; nothing is published for it (`mintprep status --json`, drops.jsonl)",
    "fails-guards": "its image fails today's guards: `mintprep run` resamples a generated piece, `mintprep audit "
                    "--repair` replaces an imported one",
    "kept": "rejected now; its published piece stays until `mintprep audit --repair` replaces it",
    "withheld": "pinned in the local store only, until `mintprep reveal`",
    "pending": "not made yet: `mintprep run`",
}


Imported = dict[int, list[tuple[str, str]]]  # token id -> its published traits (the ledger's imports)


@dataclass(frozen=True)
class StatusInputs:
    collection: str  # the collection file's resolved path
    size: int
    hidden_drop: bool
    settings_key: str  # the pixel guards' settings: the verdicts status counts
    page_dir: str
    folders: dict[str, str]  # the folders mintprep replaces whole, by setting: checked to be its own at every status
    imported_key: str  # the imported traits `rarity` was computed for
    rarity: dict[str, Any]


def imported_key(imported: Imported) -> str:
    return content_key(sorted(imported.items()))


def inputs_of(col: Collection, imported: Imported) -> StatusInputs:
    """Everything status takes from the validated collection `col`, its rarity report for `imported`."""
    from mintprep.collection import plan_collection, rarity_report, replaced_folders
    from mintprep.state import hidden_drop

    rarity = rarity_report(col.spec, plan_collection(col.spec, imported), imported=set(imported)).to_json()
    return StatusInputs(str(col.path), col.spec.size, hidden_drop(col), _settings_key(col), str(col.page_dir),
                        {field: str(folder) for field, folder in replaced_folders(col).items()},
                        imported_key(imported), rarity)


def kept_inputs(state: StateDir, path: Path) -> tuple[StatusInputs, bytes] | None:
    """The inputs kept for the collection file at `path` as it is now (base.read_kept), and the file's bytes."""
    kept = read_kept(state.status_inputs, path)
    try:
        return (StatusInputs(**kept[0]), kept[1]) if kept is not None else None
    except TypeError:  # kept by another version of StatusInputs
        return None


def keep_inputs(state: StateDir, path: Path, source: bytes, inputs: StatusInputs) -> None:
    keep(state.status_inputs, path, source, asdict(inputs))


def collection_status(col: Collection) -> dict[str, Any]:
    if not col.state.has_ledger():
        return _without_ledger(col)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        read = ledger.status_read(_settings_key(col))
    return _status(inputs_of(col, read.imported), read)


def status_at(path: Path) -> dict[str, Any]:
    """`collection_status` of the collection file at `path`, validated as `load_collection` validates it unless it
    is the file whose inputs the last status kept (above): then neither YAML nor a model is loaded."""
    path = Path(path)
    state = StateDir(path.resolve().parent / STATE_DIR_NAME)
    kept = kept_inputs(state, path) if state.has_ledger() else None
    col, inputs = None, None
    if kept is None:
        col, source = _read(path)
        if not col.state.has_ledger():
            return _without_ledger(col)
    else:
        inputs, source = kept
        check_own_folders(Path(inputs.collection), {field: Path(folder) for field, folder in inputs.folders.items()})
    with Ledger.open(state.root, readonly=True) as ledger:
        read = ledger.status_read(inputs.settings_key if inputs is not None else _settings_key(col))
    if inputs is None or inputs.imported_key != imported_key(read.imported):
        if col is None:
            col, source = _read(path)
        inputs = inputs_of(col, read.imported)
        keep_inputs(state, path, source, inputs)
    return _status(inputs, read)


def _read(path: Path) -> tuple[Collection, bytes]:
    from mintprep.collection import read_collection  # the models: only when the file is not the one kept

    return read_collection(path)


def _settings_key(col: Collection) -> str:
    from mintprep.stages import settings_key

    return settings_key(col)


def _without_ledger(col: Collection) -> dict[str, Any]:
    from mintprep.collection import rarity_report

    return {"collection": str(col.path), "pieces": col.spec.size, "counts": {"pending": col.spec.size},
            "attention": pieces_needing_attention(token_ids(col.spec.size, False), {}, {}, set(), False),
            "unjudged": 0, "minted_seen": None, "tokens": [], "metadata_root": None, "manifest_cid": None, "page": None,
            "withheld": False, "rarity": rarity_report(col.spec).to_json()}


def _status(inputs: StatusInputs, read: StatusRead) -> dict[str, Any]:
    pieces, verdicts, manifest, minted = read.pieces, read.verdicts, read.manifest, read.minted_seen
    withheld = withholds(inputs.hidden_drop, released_among(read.tx_kinds))
    counts = Counter(piece.status for token_id, piece in pieces.items() if token_id <= inputs.size)
    counts["pending"] = inputs.size - sum(counts.values())
    index = Path(inputs.page_dir) / "index.html"
    ids = token_ids(inputs.size, 0 in read.imported or 0 in pieces)
    attention = pieces_needing_attention(ids, pieces, verdicts, set(minted[0]) if minted else set(), withheld)
    return {
        "collection": inputs.collection,
        "pieces": inputs.size,
        "counts": dict(counts),
        "attention": attention,
        "unjudged": sum(1 for t, ok in verdicts.items() if ok is None and t in ids),  # not yet under today's guards
        "minted_seen": {"token_ids": minted[0], "at": minted[1]} if minted else None,
        "tokens": [{"token_id": p.token_id, "status": p.status, "imported": p.request_key.startswith(IMPORTED_KEY),
                    "png_sha256": p.png_sha256,
                    "image_cid": p.image_cid, "metadata_cid": p.metadata_cid} for p in pieces.values()],
        "metadata_root": manifest.metadata_root if manifest else None,
        "manifest_cid": manifest.manifest_cid if manifest else None,
        "provenance_hash": manifest.provenance_hash if manifest else None,
        "page": str(index) if index.exists() else None,
        "published": read.published,
        # A hidden drop before its reveal: its pinned images and metadata are in the local store only.
        "withheld": withheld,
        # Trait draws vs weights, per-token rarity rank; an imported token's traits are its published ones.
        "rarity": inputs.rarity,
    }


def pieces_needing_attention(ids: range, pieces: dict[int, PieceRecord], verdicts: dict[int, bool | None],
                             minted: set[int], withheld: bool) -> list[dict[str, Any]]:
    """Each piece that needs something done, with what (NEEDS); pieces that are fine are not listed."""
    listed = []
    for token_id in ids:
        piece = pieces.get(token_id)
        if piece is None:
            needs = "pending"
        elif piece.status == "rejected":
            needs = "broken"
        elif verdicts.get(token_id) is False or piece.status == "kept":
            needs = "minted-and-broken" if token_id in minted else "kept" if piece.status == "kept" else "fails-guards"
        elif withheld:
            needs = "withheld"
        else:
            continue
        listed.append({"token_id": token_id, "needs": needs, "minted": token_id in minted})
    return listed


def attention_lines(info: dict[str, Any]) -> list[str]:
    """`status`'s human output: a line per piece that needs something (pending ones as ranges), then one line on
    the rest."""
    attention = info["attention"]
    by_need: dict[str, list[int]] = {}
    for entry in attention:
        by_need.setdefault(entry["needs"], []).append(entry["token_id"])
    lines = [f"{info['collection']}: {info['pieces']} pieces, "
             + (f"{len(attention)} need attention" if attention else "none needs attention")]
    for needs, why in NEEDS.items():
        ids = by_need.get(needs, [])
        if needs in ("pending", "withheld") and ids:
            lines.append(f"  {needs}: token(s) {summarise_ids(ids)}: {why}")
            continue
        lines += [f"  token {token_id}: {needs}: {why}" for token_id in ids]
    fine = info["pieces"] - len(attention)
    imported = sum(1 for token in info["tokens"] if token["imported"])
    rest = [f"{fine} fine (pinned{f', {imported} of them imported' if imported else ''})"]
    if info["unjudged"]:
        rest.append(f"{info['unjudged']} not yet checked by today's guards (`mintprep run` checks them)")
    if imported:  # `run` resamples its own near-copies; imported ones stay published, and status compares no pairs
        rest.append("near-duplicates among imported pieces: not judged here (`mintprep audit` names them)")
    seen = info["minted_seen"]
    rest.append(f"{len(seen['token_ids'])} minted when `run` last read the chain" if seen else
                "minted: not known here (status reads no chain; `mintprep audit` names minted tokens)")
    lines.append("the rest: " + "; ".join(rest))
    return lines

