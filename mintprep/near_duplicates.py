"""Near-duplicate pieces: a 64-bit perceptual hash per image and an index that finds hashes within a Hamming
distance without comparing every pair.

The hash is pHash as `imagehash.phash` computes it (the library most Python dedup tools use): greyscale, Lanczos
resize to 32x32, 2-D DCT-II, the 8x8 lowest frequencies compared with their median, bits row-major with the first
bit most significant. It is written here in numpy (the DCT as a matrix product) rather than imported, so the runtime
does not take on scipy and PyWavelets for ten lines; tests check it gives imagehash's bits.

The index is multi-index hashing (Norouzi et al., "Fast Search in Hamming Space with Multi-Index Hashing", CVPR
2012): the hash is cut into 4 bands of 16 bits, each band keyed in its own table. If two hashes differ in at most
d bits, some band differs in at most floor(d / 4) bits (pigeonhole), so a query looks up, per band, every key
within that radius (17 keys for d <= 7) and checks only the hashes found there. With 16-bit keys a band's bucket
holds n / 65536 hashes on average, so a query costs a constant number of look-ups plus O(n / 65536) checks:
building and querying 100,000 pieces is O(n) in practice and never the O(n^2) of all pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from PIL import Image

HASH_SIDE = 8
DCT_SIDE = 32  # imagehash's highfreq_factor 4
BANDS = 4
BAND_BITS = 64 // BANDS
PHASH_VERSION = "phash-imagehash/v1"  # cached hashes carry it: a change of method recomputes them


def _dct_matrix(n: int) -> np.ndarray:
    """Unnormalised DCT-II (scipy.fftpack.dct's default): X[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N)."""
    k = np.arange(n)[:, None]
    return 2.0 * np.cos(np.pi * k * (2 * np.arange(n)[None, :] + 1) / (2 * n))


_DCT = _dct_matrix(DCT_SIDE)


def phash(rgb: np.ndarray) -> int:
    """64-bit pHash of an HxWx3 uint8 image, equal to int(str(imagehash.phash(image)), 16)."""
    grey = Image.fromarray(rgb).convert("L").resize((DCT_SIDE, DCT_SIDE), Image.Resampling.LANCZOS)
    pixels = np.asarray(grey, dtype=np.float64)
    # Rounded: a matrix product leaves ~1e-9 where scipy's FFT gives the exact zeros of a flat or symmetric image,
    # and the bits of coefficients tied at the median must come out as imagehash's.
    low = np.round((_DCT @ pixels @ _DCT.T)[:HASH_SIDE, :HASH_SIDE], 6)
    bits = (low > np.median(low)).ravel()
    return int("".join("1" if b else "0" for b in bits), 2)


def hex_hash(value: int) -> str:
    return f"{value:016x}"


def distance(a: int, b: int) -> int:
    return (a ^ b).bit_count()


@dataclass(frozen=True)
class Match:
    key: int  # what the indexed hash was added under (a token id)
    distance: int


class HashIndex:
    """Hashes added under keys; `nearest(h)` finds the closest one within `max_distance`, ties to the first added."""

    def __init__(self, max_distance: int):
        if not 0 <= max_distance < 4 * BANDS:
            raise ValueError(f"max_distance must be in 0..{4 * BANDS - 1}, got {max_distance}")
        self.max_distance = max_distance
        radius = max_distance // BANDS
        self._probes = [sum(1 << bit for bit in bits) for r in range(radius + 1)
                        for bits in combinations(range(BAND_BITS), r)]
        self._tables: list[dict[int, list[int]]] = [{} for _ in range(BANDS)]
        self._hashes: list[int] = []
        self._keys: list[int] = []

    def __len__(self) -> int:
        return len(self._hashes)

    def add(self, key: int, value: int) -> None:
        slot = len(self._hashes)
        self._hashes.append(value)
        self._keys.append(key)
        for band, table in enumerate(self._tables):
            table.setdefault(_band(value, band), []).append(slot)

    def nearest(self, value: int) -> Match | None:
        candidates: set[int] = set()
        for band, table in enumerate(self._tables):
            own = _band(value, band)
            for probe in self._probes:
                candidates.update(table.get(own ^ probe, ()))
        best: tuple[int, int] | None = None
        for slot in candidates:
            d = (self._hashes[slot] ^ value).bit_count()
            if d <= self.max_distance and (best is None or (d, slot) < best):
                best = (d, slot)
        return None if best is None else Match(self._keys[best[1]], best[0])


def _band(value: int, band: int) -> int:
    return (value >> (band * BAND_BITS)) & ((1 << BAND_BITS) - 1)


def find_duplicates(hashes: list[tuple[int, int]], max_distance: int) -> dict[int, Match]:
    """`hashes`: (token id, hash) in priority order. A token whose hash lies within `max_distance` of a token kept
    before it is a duplicate of that token; duplicates are not kept (they will be resampled), so each is named
    against a piece that stays."""
    index = HashIndex(max_distance)
    duplicates = {}
    for token_id, value in hashes:
        match = index.nearest(value)
        if match is None:
            index.add(token_id, value)
        else:
            duplicates[token_id] = match
    return duplicates
