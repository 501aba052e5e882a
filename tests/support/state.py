"""Reading a collection's state back for comparison: what a repair settled, and proof a command changed nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from mintprep.commands.audit import audit_collection
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.reader import list_directory, read_file
from mintprep.state.ledger import Ledger
from mintprep.page import read_page_config


def final_state(path: Path) -> dict:
    """Everything a repair is supposed to have settled, in comparable form."""
    col = load_collection(path)
    backend = make_backend(col.spec.ipfs, col.state_dir)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        record = ledger.current_manifest()
        page = read_page_config(col.page_dir / "index.html")
        listing = list_directory(record.metadata_root, backend.fetch_block)
        return {
            "metadata_root": record.metadata_root,
            "manifest_cid": record.manifest_cid,
            "images": {t: p.image_cid for t, p in ledger.pieces().items()},
            "metadata_images": {t: json.loads(read_file(listing[f"{t}.json"], backend.fetch_block))["image"]
                                for t in ledger.pieces()},
            "page_root": page["metadata_root"],
            "page_images": {entry[0]: entry[2] for entry in page["tokens"]},
            "ledger_pins": sorted(p["cid"] for p in ledger.active_pins()),
            "backend_pins": backend.list_pins(),
            "first_attempts": ledger.first_attempts(),
            "open_journal": ledger.open_journal("repair") is not None,
        }


def generations_per_token(path: Path) -> dict[int, int]:
    db = sqlite3.connect(f"file:{path.parent / '.mintprep' / 'state.db'}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT token_id, count(*) FROM generations GROUP BY token_id").fetchall())
    finally:
        db.close()


def assert_repaired(path: Path, planted: dict[int, str]) -> dict:
    state = final_state(path)
    assert audit_collection(load_collection(path)).ok
    for token_id, old_cid in planted.items():
        new_cid = state["images"][token_id]
        assert new_cid != old_cid
        assert state["metadata_images"][token_id] == f"ipfs://{new_cid}"
        assert state["page_images"][token_id] == new_cid
        assert old_cid not in state["backend_pins"] and old_cid not in state["ledger_pins"]
    assert state["page_root"] == state["metadata_root"]
    assert state["ledger_pins"] == state["backend_pins"], "no orphan pin, no pin the ledger does not know"
    referenced = set(state["images"].values()) | {state["metadata_root"], state["manifest_cid"]}
    assert set(state["backend_pins"]) == referenced
    assert not state["open_journal"]
    return state


def state_fingerprint(path: Path) -> dict[str, str]:
    """sha256 of every file of the ledger, object store, IPFS store and page (lock and WAL side files aside, and
    the verdict cache a read-only command may fill: mintprep.state.verdict_cache)."""
    base = path.parent
    skipped = {"lock", "pins.lock", "state.db-shm", "state.db-wal", "verdicts-cache.db", "verdicts-cache.db-wal",
               "verdicts-cache.db-shm"}
    return {str(f.relative_to(base)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(base.rglob("*")) if f.is_file() and f.name not in skipped}
