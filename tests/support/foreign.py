"""A collection made *without* mintprep, the way the person this tool is for made theirs: PNGs written by a
plain PIL script (some black, grey or noise), metadata in HashLips' shape (`dna`, `edition`, `date`,
`compiler`, image as `ipfs://<images dir>/<n>.png`), both folders added to their own IPFS node (a block store
served by a local trustless gateway, standing in for `ipfs add -r` + a public gateway)."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
from PIL import Image

from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import DagImport, get_profile, import_bytes, import_directory
from mintprep.collection.traits import draw_trait

SIDE = 64
TRAITS = {"flower": {"sunflower": 3, "tulip": 2, "poppy": 2, "iris": 1, "lotus": 1},
          "style": {"pixel art": 3, "woodcut": 1}, "palette": {"warm": 2, "cool": 2, "mono": 1}}


def healthy_png(token_id: int) -> bytes:
    y, x = np.mgrid[0:SIDE, 0:SIDE].astype(float)
    rng = np.random.default_rng(token_id)
    phase = rng.uniform(0, 2 * np.pi, 3)
    rgb = np.stack([40 + 1.3 * x + 1.1 * y + 25 * np.sin(x / 9 + p) + 25 * np.cos(y / 11 + p) for p in phase], -1)
    return _png(rgb + rng.normal(0, 2, rgb.shape))


def broken_png(kind: str, token_id: int) -> bytes:
    if kind == "black":
        return _png(np.zeros((SIDE, SIDE, 3)))
    if kind == "grey":
        return _png(np.full((SIDE, SIDE, 3), 128.0))
    return _png(np.random.default_rng(token_id).integers(0, 256, (SIDE, SIDE, 3)).astype(float))


def pixel_art_png(token_id: int) -> bytes:
    """Legitimate pixel art: 8x8 blocks of a six-colour palette (posterized, and whole)."""
    rng = np.random.default_rng(token_id)
    palette = rng.integers(0, 256, (6, 3))
    return _png(palette[rng.integers(0, 6, (8, 8))].repeat(SIDE // 8, 0).repeat(SIDE // 8, 1).astype(float))


def _png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB").save(out, format="PNG")
    return out.getvalue()


@dataclass(frozen=True)
class Foreign:
    store: BlockStore
    images_root: str
    metadata_root: str
    image_cids: dict[int, str]
    documents: dict[int, dict]
    metadata_cids: dict[int, str]  # each token's own file (what a per-token tokenURI names)


def make_foreign_collection(node: Path, size: int, broken: dict[int, str], seed: int = 1234, first_id: int = 1,
                            suffix: str = ".json", beside: dict[str, bytes] | None = None) -> Foreign:
    """Ids `first_id`..: token N's metadata file named `f"{N}{suffix}"` (ERC721A-style collections: `0`, `1`…);
    `beside`: other files of the metadata directory (HashLips' `_metadata.json`, Sugar's `collection.json`)."""
    profile = get_profile("kubo-cidv1")
    ids = range(first_id, first_id + size)
    images = {t: (broken_png(broken[t], t) if t in broken else healthy_png(t)) for t in ids}
    image_dags = {f"{t}.png": import_bytes(data, profile) for t, data in images.items()}
    images_dir = import_directory(image_dags, profile)
    documents = {}
    for t in ids:
        traits = [{"trait_type": name, "value": draw_trait(seed + 1, t, name, weights)} for name, weights in TRAITS.items()]
        documents[t] = {"name": f"Sunflower #{t}", "description": "Flowers from my own script.",
                        "image": f"ipfs://{images_dir.root}/{t}.png", "edition": t, "date": 1700000000000 + t,
                        "dna": hashlib.sha1(json.dumps(traits).encode()).hexdigest(), "attributes": traits,
                        "compiler": "HashLips Art Engine"}
    meta_dags = _metadata_files(documents, suffix)
    others = {name: import_bytes(data, profile) for name, data in (beside or {}).items()}
    metadata_dir = import_directory({**meta_dags, **others}, profile)
    store = BlockStore(node)
    store.put_many([*images_dir.blocks, *metadata_dir.blocks])
    return Foreign(store, str(images_dir.root), str(metadata_dir.root),
                   {t: str(image_dags[f"{t}.png"].root) for t in images}, documents,
                   {t: str(meta_dags[f"{t}{suffix}"].root) for t in ids})


def publish_metadata_directory(foreign: Foreign, ids: Iterable[int], suffix: str = ".json") -> str:
    """A second folder holding the same metadata files for `ids` only (a batch the creator uploaded on its own,
    as thirdweb's lazy-mint batches are), added to the same node; its root CID."""
    directory = import_directory(_metadata_files({t: foreign.documents[t] for t in ids}, suffix),
                                 get_profile("kubo-cidv1"))
    foreign.store.put_many(directory.blocks)
    return str(directory.root)


def _metadata_files(documents: dict[int, dict], suffix: str) -> dict[str, DagImport]:
    profile = get_profile("kubo-cidv1")
    return {f"{t}{suffix}": import_bytes(json.dumps(d, indent=2).encode(), profile) for t, d in documents.items()}
