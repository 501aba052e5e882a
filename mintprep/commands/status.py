"""`mintprep status`: what the ledger says is done, per stage and per piece (read-only)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from mintprep.collection import Collection, plan_collection, rarity_report, token_ids
from mintprep.state import IMPORTED_KEY, Ledger, withholding, PieceRecord
from mintprep.base import summarise_ids
from mintprep.stages import settings_key

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


def collection_status(col: Collection) -> dict[str, Any]:
    if not col.state.has_ledger():
        return {"collection": str(col.path), "pieces": col.spec.size, "counts": {"pending": col.spec.size},
                "attention": pieces_needing_attention(token_ids(col.spec.size, False), {}, {}, set(), False),
                "unjudged": 0, "minted_seen": None, "tokens": [], "metadata_root": None, "manifest_cid": None, "page": None, "withheld": False,
                "rarity": rarity_report(col.spec).to_json()}
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        pieces = ledger.pieces()
        manifest = ledger.current_manifest_names()
        publish = ledger.latest_publish()
        imported = ledger.imported_traits()
        withheld = withholding(col, ledger)
        verdicts = ledger.piece_verdicts(settings_key(col))
        minted = ledger.minted_seen()
    counts = Counter(piece.status for token_id, piece in pieces.items() if token_id <= col.spec.size)
    counts["pending"] = col.spec.size - sum(counts.values())
    index = col.page_dir / "index.html"
    ids = token_ids(col.spec.size, 0 in imported or 0 in pieces)
    attention = pieces_needing_attention(ids, pieces, verdicts, set(minted[0]) if minted else set(), withheld)
    return {
        "collection": str(col.path),
        "pieces": col.spec.size,
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
        "published": publish.location if publish else None,
        # A hidden drop before its reveal: its pinned images and metadata are in the local store only.
        "withheld": withheld,
        # Trait draws vs weights, per-token rarity rank; an imported token's traits are its published ones.
        "rarity": rarity_report(col.spec, plan_collection(col.spec, imported), imported=set(imported)).to_json(),
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
    seen = info["minted_seen"]
    rest.append(f"{len(seen['token_ids'])} minted when `run` last read the chain" if seen else
                "minted: not known here (status reads no chain; `mintprep audit` names minted tokens)")
    lines.append("the rest: " + "; ".join(rest))
    return lines

