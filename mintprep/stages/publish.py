"""The publish stage: the metadata directory and the manifest over the pinned pieces and every token already
published, pinned (a hidden drop's: in the local store until the reveal) and the manifest recorded; and the ledger
row each token's piece pointer becomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mintprep.base import content_key, sha256_hex
from mintprep.collection import Manifest, PinnedPiece, build_manifest, metadata_files, token_file_name
from mintprep.state import PieceRecord, Workspace, complete_publication
from mintprep.ipfs import PinBackend, import_bytes, import_directory
from mintprep.stages.pin import pin_bytes, pin_content
from mintprep.stages.withheld import publication_backend


@dataclass(frozen=True)
class Publication:
    manifest: Manifest
    manifest_cid: str


def piece_pointer(token_id: int, request_key: str, published: dict[int, Any], status: str = "pinned") -> PieceRecord:
    """The ledger row of a token: what it currently publishes; a rejected token that was published is "kept"."""
    token = published.get(token_id)
    if token is None:
        return PieceRecord(token_id, request_key, None, None, None, status)
    return PieceRecord(token_id, request_key, token.png_sha256, token.image_cid, token.metadata_cid,
                       "pinned" if status == "pinned" else "kept")


def publish_metadata(ws: Workspace, accepted: list[PinnedPiece], minted: list[int] | tuple[int, ...] = (),
                     kept_documents: Mapping[int, bytes] | None = None, *, force: bool = False,
                     suffix: str | None = None, documents: Mapping[str, bytes] | None = None) -> Publication:
    """Write and pin the metadata directory and the manifest over `accepted` and every published token it lacks;
    `kept_documents` (minted tokens' live documents) are written byte for byte instead of afresh; `force` pins
    both again even where the ledger has them (a repair of pins the backend lost). A hidden drop's are pinned in
    the local store only until the reveal (`stages.withheld`). `suffix`: the file names' (default: the current
    manifest's, else ".json"), for a first directory whose tokenURI forms other names (thirdweb: base + id).
    `documents`: imported documents at hand (by sha256), not read back from the object store (an import's)."""
    pieces = complete_publication(ws.ledger, accepted, ws.spec.size, minted)
    current = ws.ledger.current_manifest()
    if suffix is None:
        suffix = current.manifest.token_suffix if current else ".json"  # the names tokenURI already forms
    sources = source_documents(ws, pieces, documents)
    root, metadata_cids = pin_metadata_directory(ws, pieces, publication_backend(ws), suffix, kept_documents,
                                                 force=force, sources=sources)
    manifest = build_manifest(ws.spec, pieces, root, metadata_cids, ws.profile.name, suffix, sources)
    return record_manifest(ws, manifest, force=force)


def pin_metadata_directory(ws: Workspace, pieces: list[PinnedPiece], backend: PinBackend, suffix: str = ".json",
                           kept_documents: Mapping[int, bytes] | None = None, *,
                           force: bool = False, sources: Mapping[str, bytes] | None = None,
                           ) -> tuple[str, dict[int, str]]:
    """(root CID, token id -> metadata file CID) of the directory over `pieces`, pinned on `backend`
    (`sources`: imported tokens' published documents, read from the object store when not given)."""
    spec, ledger = ws.spec, ws.ledger
    sources = source_documents(ws, pieces) if sources is None else sources
    files = {**metadata_files(spec, pieces, sources, suffix),
             **{token_file_name(t, suffix): data for t, data in (kept_documents or {}).items()}}
    dags = {name: import_bytes(data, ws.profile) for name, data in files.items()}
    directory = pin_content(ledger, backend, ws.profile,
                            content_sha256=content_key({name: sha256_hex(data) for name, data in files.items()}),
                            make_dag=lambda: import_directory(dags, ws.profile), kind="metadata",
                            name=f"{spec.symbol}-metadata", force=force)
    return directory.cid, {p.token_id: str(dags[token_file_name(p.token_id, suffix)].root) for p in pieces}


def source_documents(ws: Workspace, pieces: list[PinnedPiece], at_hand: Mapping[str, bytes] | None = None,
                     ) -> dict[str, bytes]:
    """Imported tokens' published documents by sha256: what their metadata files and names are made from (from
    `at_hand` where it holds them, else read from the object store)."""
    at_hand = at_hand or {}
    return {sha: at_hand[sha] if sha in at_hand else ws.ledger.objects.get(sha)
            for sha in (p.source_metadata_sha256 for p in pieces) if sha}


def record_manifest(ws: Workspace, manifest: Manifest, *, force: bool = False) -> Publication:
    data = manifest.encode()
    manifest_pin = pin_bytes(ws.ledger, publication_backend(ws), ws.profile, data, kind="manifest",
                             name=f"{ws.spec.symbol}-manifest", force=force)
    ws.ledger.record_manifest(metadata_root=manifest.metadata_root, manifest_cid=manifest_pin.cid,
                              manifest_sha256=ws.ledger.objects.put(data), provenance_hash=manifest.provenance_hash)
    return Publication(manifest, manifest_pin.cid)
