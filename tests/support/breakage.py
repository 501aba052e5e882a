"""Breaking a built collection "behind the pipeline's back", as an older mintprep or a hand upload would have,
and fingerprinting its state to prove a command changed nothing."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from mintprep.collection.config import Collection, load_collection
from mintprep.base.hashing import content_key, sha256_hex
from mintprep.ipfs.unixfs import import_bytes, import_directory
from mintprep.state.ledger import Ledger, PieceRecord
from mintprep.collection.manifest import PinnedPiece, build_manifest, metadata_files
from mintprep.page.publish import build_collection_page, collection_page_inputs
from mintprep.stages.pin import pin_bytes, pin_content
from mintprep.stages.publish import publish_metadata, record_manifest
from mintprep.collection.traits import plan_piece
from mintprep.state.workspace import Workspace


# -- broken images, as fp16 NaNs produce them -------------------------------------------------------

def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(out, format="PNG")
    return out.getvalue()


def broken_pngs(col: Collection) -> dict[str, bytes]:
    """A black, a flat grey and a pure-noise image at the collection's stored size."""
    side = col.spec.generator.width * col.spec.generator.upscale
    noise = np.random.default_rng(7).integers(0, 256, (col.spec.generator.height, col.spec.generator.width, 3))
    upscale = col.spec.generator.upscale
    return {
        "black": _png(np.zeros((side, side, 3))),
        "flat": _png(np.full((side, side, 3), 128)),
        "noise": _png(noise.repeat(upscale, axis=0).repeat(upscale, axis=1)),
    }


def plant_images(path: Path, images: dict[int, bytes]) -> dict[int, str]:
    """Pin `images` for their tokens and point the ledger, metadata, manifest and page at them; return the CIDs."""
    col = load_collection(path)
    with Workspace.open(col) as ws:
        ledger, backend, profile = ws.ledger, ws.backend, ws.profile
        record = ledger.current_manifest()
        pieces = ledger.pieces()
        pinned, planted = [], {}
        for token in record.manifest.tokens:
            token_id = token.token_id
            png_sha256, image_cid = token.png_sha256, token.image_cid
            if token_id in images:
                png_sha256 = ledger.objects.put(images[token_id])
                image_cid = pin_bytes(ledger, backend, profile, images[token_id], kind="image",
                                      name=f"planted-{token_id}.png").cid
                planted[token_id] = image_cid
            pinned.append(PinnedPiece.of(plan_piece(col.spec, token_id), png_sha256, image_cid, token.provenance,
                                         pieces[token_id].request_key))
        published = publish_metadata(ws, pinned).manifest.by_token()
        ledger.set_pieces([PieceRecord(t, pieces[t].request_key, published[t].png_sha256, published[t].image_cid,
                                       published[t].metadata_cid, "pinned") for t in published])
        replaced = [t.image_cid for t in record.manifest.tokens if t.token_id in images]
        _unpin(ledger, backend, [*replaced, record.metadata_root, record.manifest_cid])
        build_collection_page(col, collection_page_inputs(col, ledger))
    return planted


def _unpin(ledger: Ledger, backend, cids: list[str]) -> None:
    """What the older version replaced is gone, so the planted state has no pins nothing points at."""
    for cid in cids:
        backend.unpin(cid)
        ledger.record_unpin(cid, backend.name)


def plant_metadata(path: Path, edit: Callable[[dict[str, bytes]], None]) -> str:
    """Hand-edit the metadata files, pin the edited directory and record a manifest for it; return the root."""
    col = load_collection(path)
    spec = col.spec
    with Workspace.open(col) as ws:
        ledger, backend, profile = ws.ledger, ws.backend, ws.profile
        record = ledger.current_manifest()
        pieces = [t.as_piece(ledger.pieces()[t.token_id].request_key) for t in record.manifest.tokens]
        files = metadata_files(spec, pieces)
        edit(files)
        dags = {name: import_bytes(data, profile) for name, data in files.items()}
        root = pin_content(ledger, backend, profile, content_sha256=content_key({n: sha256_hex(d) for n, d in files.items()}),
                           make_dag=lambda: import_directory(dags, profile), kind="metadata", name="hand-edited").cid
        manifest = build_manifest(spec, pieces, root, {p.token_id: str(dags[f"{p.token_id}.json"].root)
                                                       for p in pieces}, profile.name)
        record_manifest(ws, manifest)
        _unpin(ledger, backend, [record.metadata_root, record.manifest_cid])
        build_collection_page(col, collection_page_inputs(col, ledger))
    return root
