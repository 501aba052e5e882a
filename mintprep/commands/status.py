"""`mintprep status`: what the ledger says is done, per stage and per piece (read-only)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from mintprep.collection import Collection, plan_collection, rarity_report
from mintprep.state import IMPORTED_KEY, Ledger, withholding


def collection_status(col: Collection) -> dict[str, Any]:
    if not col.state.has_ledger():
        return {"collection": str(col.path), "pieces": col.spec.size, "counts": {"pending": col.spec.size},
                "tokens": [], "metadata_root": None, "manifest_cid": None, "page": None, "withheld": False,
                "rarity": rarity_report(col.spec).to_json()}
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        pieces = ledger.pieces()
        manifest = ledger.current_manifest_names()
        publish = ledger.latest_publish()
        imported = ledger.imported_traits()
        withheld = withholding(col, ledger)
    counts = Counter(piece.status for token_id, piece in pieces.items() if token_id <= col.spec.size)
    counts["pending"] = col.spec.size - sum(counts.values())
    index = col.page_dir / "index.html"
    return {
        "collection": str(col.path),
        "pieces": col.spec.size,
        "counts": dict(counts),
        "tokens": [{"token_id": p.token_id, "status": p.status, "imported": p.request_key.startswith(IMPORTED_KEY),
                    "png_sha256": p.png_sha256,
                    "image_cid": p.image_cid, "metadata_cid": p.metadata_cid} for p in pieces.values()],
        "metadata_root": manifest.metadata_root if manifest else None,
        "manifest_cid": manifest.manifest_cid if manifest else None,
        "provenance_hash": manifest.provenance_hash if manifest else None,
        "page": str(index) if index.exists() else None,
        "published": publish.location if publish else None,
        # A hidden drop before its reveal: its pinned images and metadata are in the local store only.
        "withheld": withheld,
        # Trait draws vs weights, per-token rarity rank; an imported token's traits are its published ones.
        "rarity": rarity_report(col.spec, plan_collection(col.spec, imported), imported=set(imported)).to_json(),
    }
