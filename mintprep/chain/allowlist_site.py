"""Allowlist files published with the site: a buyer's browser fetches what its own wallet needs, not the list.

`allowlist/<phase>/a/<prefix>.json` maps each listed address (lower case) whose hex starts with `prefix` to its
leaf's index in the tree; `prefix` has as many hex digits as keep a shard to a few dozen addresses. The tree
(StandardMerkleTree's node array, see chain.merkle) is cut into bands of `band` levels (the page config says how
many: the tree's levels shared evenly, at most MAX_BAND each): `allowlist/<phase>/n/<r>.bin` holds, for a node r
at a depth that is a multiple of `band`, the sibling of r and then the nodes under r down to the band's last
level, breadth first, 32 bytes each (zeros where the tree has no node). A wallet's proof needs one shard and one
node file per band (three for a million addresses); the page walks from the leaf to the root,
and `check` reads the same files to prove every listed address, so what a buyer uses is what is verified.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mintprep.chain.merkle import AllowlistTree, row_order
from mintprep.chain.phases import SalePhase

ALLOWLIST_DIR = "allowlist"
MAX_BAND = 8  # levels per node file: 256 slots of 32 bytes at most
SHARD_TARGET = 32  # addresses per shard, about
_NODE_BATCH = 4096  # band roots gathered at once (bounded memory for a million-address tree)


def allowlist_dir(phase_number: int) -> str:
    return f"{ALLOWLIST_DIR}/{phase_number}/"


def shard_chars(count: int) -> int:
    """Hex digits of the address that name its shard: the fewest that keep shards near SHARD_TARGET entries."""
    chars = 1
    while count / 16**chars > SHARD_TARGET and chars < 8:
        chars += 1
    return chars


def page_allowlist(phase_number: int, tree: AllowlistTree) -> dict[str, Any]:
    """What the page config says about a phase's allowlist: where its files are and how they are cut."""
    return {"dir": allowlist_dir(phase_number), "shard_chars": shard_chars(len(tree)),
            "band": band_levels(len(tree.nodes))}


def band_levels(node_count: int) -> int:
    """Levels per node file: the tree's levels in as few bands of at most MAX_BAND as hold them, shared evenly.
    Bands of 8 from the top left a million-address tree's last 5 levels in 65,536 files of a few nodes each;
    three bands of 7 make 16,513 files in all, and a wallet fetches 12 KB of nodes instead of 17 KB."""
    levels = _depth(node_count - 1) + 1
    bands = -(-levels // MAX_BAND)
    return -(-levels // bands)


def allowlist_files(phases: list[SalePhase]) -> dict[str, bytes]:
    """Site-relative path -> bytes for every phase with an allowlist (deterministic)."""
    files: dict[str, bytes] = {}
    for number, phase in enumerate(phases):
        if phase.allowlist is not None:
            files.update(_shard_files(allowlist_dir(number), phase.allowlist))
            files.update(_node_files(allowlist_dir(number), phase.allowlist))
    return files


def _shard_files(folder: str, tree: AllowlistTree) -> dict[str, bytes]:
    """Shard JSON as json.dumps(sorted entries, separators=(",", ":")) writes it, made from arrays: the addresses
    sorted once, each shard a slice of one list of `"0x…":leaf` entries."""
    chars = shard_chars(len(tree))
    order = row_order(tree.raw)
    hexes = tree.raw[order].tobytes().hex()
    entries = [f'"0x{hexes[40 * i:40 * i + 40]}":{leaf}' for i, leaf in enumerate(tree.leaf_index[order].tolist())]
    prefix = np.ascontiguousarray(tree.raw[order, :4]).view(">u4").ravel() >> np.uint32(32 - 4 * chars)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(prefix, minlength=16**chars))]).tolist()
    # every prefix gets a file, an empty shard too: a 404 is a broken site
    return {f"{folder}a/{n:0{chars}x}.json": ("{" + ",".join(entries[bounds[n]:bounds[n + 1]]) + "}").encode()
            for n in range(16**chars)}


def _depth(index: int) -> int:
    return (index + 1).bit_length() - 1


def _node_files(folder: str, tree: AllowlistTree) -> dict[str, bytes]:
    size = len(tree.nodes)
    padded = np.concatenate([tree.nodes, np.zeros((1, 32), dtype=np.uint8)])  # index `size`: the missing node
    deepest = _depth(size - 1)
    band = band_levels(size)
    files = {}
    for top in range(0, deepest + 1, band):
        levels = min(band, deepest - top + 1)
        roots_all = np.arange(2**top - 1, min(2 ** (top + 1) - 1, size))
        for start in range(0, len(roots_all), _NODE_BATCH):
            roots = roots_all[start:start + _NODE_BATCH]
            sibling = np.where(roots == 0, size, np.where(roots % 2 == 1, roots + 1, roots - 1))
            slots = [np.minimum(sibling, size)[:, None]]
            for j in range(levels):
                below = (roots[:, None] + 1) * 2**j - 1 + np.arange(2**j)[None, :]
                slots.append(np.where(below < size, below, size))
            gathered = padded[np.concatenate(slots, axis=1)]  # (roots, 2**levels, 32)
            for root, data in zip(roots.tolist(), gathered):
                files[f"{folder}n/{root}.bin"] = data.tobytes()
    return files


def read_site_allowlist(site_dir: Path, phase_number: int) -> dict[str, Any] | None:
    """{"leaves": {address: leaf index}, "nodes": (size, 32) uint8 array, zeros where no file gives a node} as
    published for a phase; None when the site has no allowlist folder for it (not built yet). Unreadable files
    are left out: their addresses then fail."""
    folder = Path(site_dir) / allowlist_dir(phase_number)
    if not folder.is_dir():
        return None
    leaves: dict[str, int] = {}
    for shard in sorted((folder / "a").glob("*.json")):
        try:
            entries = json.loads(shard.read_bytes())
            leaves.update({str(a).lower(): int(i) for a, i in entries.items()})
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    indices, values = [np.zeros(0, dtype=np.int64)], [np.zeros((0, 32), dtype=np.uint8)]
    for path in (folder / "n").glob("*.bin"):
        try:
            root, data = int(path.stem), path.read_bytes()
        except (OSError, ValueError):
            continue
        slots = np.frombuffer(data[:len(data) // 32 * 32], dtype=np.uint8).reshape(-1, 32)[:len(_SLOT_INDEX)]
        index = (root + 1) * _SLOT_SCALE[:len(slots)] + _SLOT_INDEX[:len(slots)]
        index[0] = root + 1 if root % 2 else root - 1  # slot 0: r's sibling (none for the root: -1)
        present = slots.any(axis=1) & (index >= 0)  # zeros: no node there (past the tree's end)
        indices.append(index[present])
        values.append(slots[present])
    index = np.concatenate(indices)
    nodes = np.zeros((int(index.max(initial=-1)) + 1, 32), dtype=np.uint8)
    nodes[index] = np.concatenate(values)
    return {"leaves": leaves, "nodes": nodes}


# slot s >= 1 of a node file for r holds node (r + 1) * 2**j - 1 + s - 2**j, where j = depth of s below r
_SLOT_DEPTH = np.array([max(s.bit_length() - 1, 0) for s in range(2**MAX_BAND)], dtype=np.int64)
_SLOT_SCALE = 2**_SLOT_DEPTH
_SLOT_INDEX = np.arange(2**MAX_BAND) - _SLOT_SCALE - 1
