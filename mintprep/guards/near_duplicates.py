"""Near-duplicate pieces: a 64-bit perceptual hash per image and an index that finds hashes within a Hamming
distance without comparing every pair.

The hash is pHash as `imagehash.phash` computes it (the library most Python dedup tools use): greyscale, Lanczos
resize to 32x32, 2-D DCT-II, the 8x8 lowest frequencies compared with their median, bits row-major with the first
bit most significant. It is written here in numpy (the DCT as a matrix product) rather than imported, so the runtime
does not take on scipy and PyWavelets for ten lines; tests check it gives imagehash's bits.

The search is multi-index hashing (Norouzi et al., "Fast Search in Hamming Space with Multi-Index Hashing", CVPR
2012): the hash is cut into 4 bands of 16 bits. If two hashes differ in at most d bits, some band differs in at
most floor(d / 4) bits (pigeonhole), so per band it suffices to look up every key within that radius (17 keys for
d <= 7) and check only the hashes found there. Done for the whole collection at once with the band keys sorted
once and a table of where each of the 2^16 keys starts, that is O(n) look-ups plus the candidates returned: for
uniform hashes 68 n / 65536 per piece (5 at 10,000 pieces), so all pairs are never compared (n^2 / 2: 50 million
at 10,000).

A close global hash only makes a pair a candidate; it is a duplicate when its tiles agree too. Layered art (one
background and figure, another hat or eyes layer) is a few pHash bits apart, since the 8x8 lowest frequencies
barely see a small region change, yet it is distinct by design. So each image also keeps a tile signature: its
luma box-averaged to 16x16. The tile difference of two images is the largest, over a 4x4 grid of tiles (4x4
signature pixels each, 1/16 of the image), of the mean absolute luma difference in that tile. A re-encoding
changes every tile a little (JPEG round trip, 1-pixel resize, +2% brightness, a few changed pixels: at most 3.1
levels on the layered corpus of the tests); a changed layer changes its own tiles a lot (at least 10.3 levels).
The trade-off table is in docs/duplicates.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from PIL import Image

HASH_SIDE = 8
DCT_SIDE = 32  # imagehash's highfreq_factor 4
BANDS = 4
BAND_BITS = 64 // BANDS
SIGNATURE_SIDE = 16
TILE_GRID = 4


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
    # np.median's value (the mean of the two middle coefficients), without the numpy.ma it imports on first use:
    # 1.1 MiB of code loaded mid-import, on the first image an import judges (tracemalloc).
    ordered = np.sort(low, axis=None)
    bits = (low > (ordered[ordered.size // 2 - 1] + ordered[ordered.size // 2]) / 2).ravel()
    return int("".join("1" if b else "0" for b in bits), 2)


def tile_signature(rgb: np.ndarray) -> bytes:
    """The image's luma box-averaged to 16x16 (256 bytes): what `tile_difference` compares."""
    grey = Image.fromarray(rgb).convert("L").resize((SIGNATURE_SIDE, SIGNATURE_SIDE), Image.Resampling.BOX)
    return np.asarray(grey, dtype=np.uint8).tobytes()


def tile_difference(a: bytes, b: bytes) -> float:
    """Largest mean absolute luma difference over the 4x4 grid of tiles of two tile signatures."""
    tile = SIGNATURE_SIDE // TILE_GRID
    diff = np.abs(np.frombuffer(a, np.uint8).astype(np.int16) - np.frombuffer(b, np.uint8).astype(np.int16))
    tiles = diff.reshape(TILE_GRID, tile, TILE_GRID, tile).mean(axis=(1, 3))
    return round(float(tiles.max()), 3)


def hex_hash(value: int) -> str:
    return f"{value:016x}"


def distance(a: int, b: int) -> int:
    return (a ^ b).bit_count()


@dataclass(frozen=True)
class Match:
    key: int  # the token id of the piece matched
    distance: int
    tile_diff: float | None = None  # None: not confirmed by tiles (no `confirm` given)


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def popcount(values: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (a byte table: numpy < 2 has no bitwise_count)."""
    return _POPCOUNT[values.view(np.uint8).reshape(-1, 8)].sum(axis=1, dtype=np.int64)


def near_pairs(values: list[int], max_distance: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, of `values` within `max_distance` bits, found by multi-index hashing: per band,
    the band keys sorted once, and for each probe (a flip of at most floor(d / 4) bits) the equal keys found through
    a table of where each key starts in that order. O(n) look-ups (after one sort per band) plus the candidates
    they return. Returns (i, j, distance) arrays."""
    if not 0 <= max_distance < 4 * BANDS:
        raise ValueError(f"max_distance must be in 0..{4 * BANDS - 1}, got {max_distance}")
    hashes = np.array(values, dtype=np.uint64)
    probes = np.array([sum(1 << bit for bit in bits) for r in range(max_distance // BANDS + 1)
                       for bits in combinations(range(BAND_BITS), r)], np.int64)
    firsts, seconds = [], []
    for band in range(BANDS):
        keys = ((hashes >> np.uint64(band * BAND_BITS)) & np.uint64((1 << BAND_BITS) - 1)).astype(np.int64)
        order = np.argsort(keys, kind="stable")
        # Where each of the 2^16 band keys starts in the sorted order and how many hold it: a probe's equal keys
        # are then two table look-ups per query (a binary search per query grew with log n).
        per_key = np.bincount(keys, minlength=1 << BAND_BITS)
        starts = np.cumsum(per_key) - per_key
        for probe in probes:
            wanted = keys ^ probe
            count = per_key[wanted]
            if not count.any():
                continue
            low = starts[wanted]
            first = np.repeat(np.arange(len(keys)), count)
            # For each query, the positions low .. low + count - 1 of the sorted keys.
            offsets = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
            second = order[np.repeat(low, count) + offsets]
            keep = first < second
            first, second = first[keep], second[keep]
            close = popcount(hashes[first] ^ hashes[second]) <= max_distance  # the few real matches, kept small
            firsts.append(first[close])
            seconds.append(second[close])
    # A pair close in several bands was found once per band.
    codes = np.unique(np.concatenate(firsts) * len(values) + np.concatenate(seconds)) if firsts else np.zeros(0, int)
    first, second = codes // max(len(values), 1), codes % max(len(values), 1)
    return first, second, popcount(hashes[first] ^ hashes[second])


def find_duplicates(hashes: list[tuple[int, int]], max_distance: int,
                    confirm: Callable[[int, int], float] | None = None,
                    max_tile_diff: float = float("inf")) -> dict[int, Match]:
    """`hashes`: (token id, hash) in priority order. A token whose hash lies within `max_distance` of a token kept
    before it (and, given `confirm(a, b)`, the tile difference of the two token ids, within `max_tile_diff`) is a
    duplicate of the nearest such token (ties: the earlier); duplicates are not kept (they will be resampled), so
    each is named against a piece that stays, and each pair is decided once."""
    first, second, dist = near_pairs([value for _, value in hashes], max_distance)
    earlier: dict[int, list[tuple[int, int]]] = {}
    for i, j, d in zip(first.tolist(), second.tolist(), dist.tolist()):
        earlier.setdefault(j, []).append((d, i))
    kept: set[int] = set()
    duplicates = {}
    for position, (token_id, _) in enumerate(hashes):
        for d, i in sorted(m for m in earlier.get(position, ()) if m[1] in kept):
            tiles = confirm(hashes[i][0], token_id) if confirm is not None else None
            if tiles is None or tiles <= max_tile_diff:
                duplicates[token_id] = Match(hashes[i][0], d, tiles)
                break
        else:
            kept.add(position)
    return duplicates
