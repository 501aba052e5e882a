"""ERC-721 metadata, ERC-7572 collection metadata and the collection manifest — pure functions.

Nothing here is volatile (no timestamps, no absolute paths): unchanged art gives unchanged bytes,
so unchanged CIDs. Token ids start at 1; tokenURI(id) = ipfs://<metadata root>/<id>.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mintprep.config import CollectionSpec
from mintprep.hashing import sha256_hex
from mintprep.traits import PiecePlan

COLLECTION_METADATA_NAME = "collection.json"


@dataclass(frozen=True)
class PinnedPiece:
    """A token whose image passed every guard and is pinned (verified) under `image_cid`."""

    plan: PiecePlan
    png_sha256: str
    image_cid: str
    provenance: dict[str, Any]
    request_key: str


def encode_json(value: Any) -> bytes:
    """Stable, readable bytes: the same value always encodes to the same file (and CID).

    Keys are sorted because values reach here both fresh and read back from the ledger, and dict
    order must not change a CID.
    """
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def token_name(spec: CollectionSpec, token_id: int) -> str:
    return f"{spec.name} #{token_id}"


def token_metadata(spec: CollectionSpec, piece: PinnedPiece) -> dict[str, Any]:
    """OpenSea metadata standard: name, description, image, attributes (+ optional fields when configured)."""
    metadata: dict[str, Any] = {
        "name": token_name(spec, piece.plan.token_id),
        "description": spec.description,
        "image": f"ipfs://{piece.image_cid}",
        "attributes": piece.plan.attributes,
    }
    metadata.update(spec.metadata.token_extras(piece.plan.token_id))
    return metadata


def collection_metadata(spec: CollectionSpec, cover_cid: str | None) -> dict[str, Any]:
    """ERC-7572 contractURI JSON (name, symbol, description, image, external_link)."""
    metadata: dict[str, Any] = {"name": spec.name, "symbol": spec.symbol, "description": spec.description}
    if cover_cid:
        metadata["image"] = f"ipfs://{cover_cid}"
    if spec.metadata.external_url:
        metadata["external_link"] = spec.metadata.external_url
    return metadata


def metadata_files(spec: CollectionSpec, pieces: list[PinnedPiece]) -> dict[str, bytes]:
    """The files of the metadata directory whose CID becomes the base URI."""
    files = {f"{p.plan.token_id}.json": encode_json(token_metadata(spec, p)) for p in pieces}
    files[COLLECTION_METADATA_NAME] = encode_json(collection_metadata(spec, pieces[0].image_cid if pieces else None))
    return files


def provenance_hash(png_sha256s_in_token_order: list[str]) -> str:
    """sha256 over the concatenated hex image hashes, token 1 first: fixes the whole set before the mint."""
    return sha256_hex("".join(png_sha256s_in_token_order).encode())


def build_manifest(spec: CollectionSpec, pieces: list[PinnedPiece], metadata_root: str,
                   metadata_cids: dict[int, str], profile: str) -> dict[str, Any]:
    ordered = sorted(pieces, key=lambda p: p.plan.token_id)
    return {
        "name": spec.name,
        "symbol": spec.symbol,
        "description": spec.description,
        "size": spec.size,
        "metadata_root": metadata_root,
        "base_uri": f"ipfs://{metadata_root}/",
        "contract_uri": f"ipfs://{metadata_root}/{COLLECTION_METADATA_NAME}",
        "provenance_hash": provenance_hash([p.png_sha256 for p in ordered]),
        "ipfs_profile": profile,
        "tokens": [
            {
                "token_id": p.plan.token_id,
                "name": token_name(spec, p.plan.token_id),
                "image_cid": p.image_cid,
                "metadata_cid": metadata_cids[p.plan.token_id],
                "png_sha256": p.png_sha256,
                "attributes": p.plan.attributes,
                "provenance": p.provenance,
            }
            for p in ordered
        ],
    }
