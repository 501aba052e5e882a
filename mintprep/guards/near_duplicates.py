"""Near-duplicate pieces: a 64-bit perceptual hash per image and an index that finds hashes within a Hamming
distance without comparing every pair.

The hash is pHash as `imagehash.phash` computes it (the library most Python dedup tools use): greyscale, Lanczos
resize to 32x32, 2-D DCT-II, the 8x8 lowest frequencies compared with their median, bits row-major with the first
bit most significant. It is written here in numpy (the DCT as a matrix product, the Lanczos resize as Pillow's to the
bit: mintprep.guards.resample) rather than imported, so the runtime does not take on scipy and PyWavelets for ten lines;
tests check it gives imagehash's bits.

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
luma box-averaged to 16x16, and its tile grid. A tile is about 16x16 pixels of the image (a 4x4 grid at 64 px, 8x8
at 128, 16x16 from 256 px), so that a trait layer fills whole tiles at every size. The tile difference of two
images is the largest, over the tiles, of the mean absolute luma difference inside a tile. A re-encoding changes
every tile a little (JPEG round trip, 1-pixel resize, +2% brightness, a few changed pixels: at most 3.1 levels on
the 64 px layered corpus of the tests, 5 on 10,000 real-size avatars); a changed layer changes its own tiles a lot
(at least 10.3 levels, and 7 on those avatars). The trade-off tables are in docs/duplicates.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from PIL import Image

from mintprep.guards.resample import lanczos_resized

HASH_SIDE = 8
DCT_SIDE = 32  # imagehash's highfreq_factor 4
BANDS = 4
BAND_BITS = 64 // BANDS
SIGNATURE_SIDE = 32
# A tile is about 16x16 pixels of the image (4x4 tiles at 64 px, 8x8 at 128, 16x16 at 256, 32x32 from 384 px): a
# trait layer (eyes, a mouth) fills whole tiles at every size, and a tile still averages a re-encoding's noise away.
# With 4x4 tiles at any size, two 256 px avatars that differ only in their eyes were one tile difference apart from
# 1.9 levels on, as close as a JPEG round trip; with at most 16x16 (24 px tiles at 384 px), 46 of 10,000 pairs of
# 384 px avatars that differ by one small accessory were 5-6 levels apart, within the default 6, where 32x32 tiles
# put them 10 or more apart and the planted copies still at 5 or less (bench/bench_duplicates.py --real).
TILE_PIXELS = 16
MIN_GRID, MAX_GRID = 4, SIGNATURE_SIDE
CELL_GRID = 16  # the cells a grid up to 16 compares: a sixteenth of the side (_largest_tile_mean)


def _dct_matrix(n: int) -> np.ndarray:
    """Unnormalised DCT-II (scipy.fftpack.dct's default): X[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N)."""
    k = np.arange(n)[:, None]
    return 2.0 * np.cos(np.pi * k * (2 * np.arange(n)[None, :] + 1) / (2 * n))


_DCT = _dct_matrix(DCT_SIDE)


def phash(rgb: np.ndarray) -> int:
    """64-bit pHash of an HxWx3 uint8 image, equal to int(str(imagehash.phash(image)), 16)."""
    return _phash_of(_grey(rgb))


def image_hashes(rgb: np.ndarray) -> tuple[int, bytes]:
    """`phash(rgb)` and `tile_signature(rgb)` from one greyscale conversion."""
    grey = _grey(rgb)
    return _phash_of(grey), _signature_of(rgb.shape, grey)


def _grey(rgb: np.ndarray) -> Image.Image:
    """The image in Pillow's greyscale (`convert("L")`), what both hashes read."""
    return Image.fromarray(rgb).convert("L")


def _phash_of(grey: Image.Image) -> int:
    pixels = lanczos_resized(np.asarray(grey), DCT_SIDE)
    # Rounded: a matrix product leaves ~1e-9 where scipy's FFT gives the exact zeros of a flat or symmetric image,
    # and the bits of coefficients tied at the median must come out as imagehash's.
    low = np.round((_DCT @ pixels.astype(np.float64) @ _DCT.T)[:HASH_SIDE, :HASH_SIDE], 6)
    # np.median's value (the mean of the two middle coefficients), without the numpy.ma it imports on first use:
    # 1.1 MiB of code loaded mid-import, on the first image an import judges (tracemalloc).
    ordered = np.sort(low, axis=None)
    bits = (low > (ordered[ordered.size // 2 - 1] + ordered[ordered.size // 2]) / 2).ravel()
    return int("".join("1" if b else "0" for b in bits), 2)


def tile_grid(height: int, width: int) -> int:
    """Tiles across the image: the power of two from MIN_GRID to MAX_GRID whose tiles come nearest TILE_PIXELS
    pixels by ratio (the next grid is taken once the tiles would be over sqrt(2) x TILE_PIXELS: 384 px gets 12 px
    tiles, not 24)."""
    side, grid = min(height, width), MIN_GRID
    while grid < MAX_GRID and side * side > 2 * (grid * TILE_PIXELS) ** 2:
        grid *= 2
    return grid


def tile_signature(rgb: np.ndarray) -> bytes:
    """The image's tile grid (one byte), then its luma box-averaged to SIGNATURE_SIDE squared: what
    `tile_difference` compares."""
    return _signature_of(rgb.shape, _grey(rgb))


def _signature_of(shape: tuple[int, ...], grey: Image.Image) -> bytes:
    averaged = grey.resize((SIGNATURE_SIDE, SIGNATURE_SIDE), Image.Resampling.BOX)
    return bytes([tile_grid(*shape[:2])]) + np.asarray(averaged, dtype=np.uint8).tobytes()


def tile_difference(a: bytes, b: bytes) -> float:
    """Largest mean absolute luma difference inside a tile of two tile signatures, on the coarser of their grids."""
    return float(tile_differences(signature_table([a, b]), np.array([0]), np.array([1]))[0])


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


def near_pairs(values: list[int], max_distance: int,
               keep: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, ...]:
    """Every pair (i, j), i < j, of `values` within `max_distance` bits, found by multi-index hashing: per band,
    the band keys sorted once, and for each probe (a flip of at most floor(d / 4) bits) the equal keys found through
    a table of where each key starts in that order. O(n) look-ups (after one sort per band) plus the candidates
    they return. `keep(i, j)`: a mask of the pairs to keep, asked of each probe's pairs as they are found, so that
    what is held is only what it keeps (art of one figure over a few grounds has many candidates: 225,291 pairs
    among 10,000 real-size avatars). Returns (i, j, distance) arrays, ordered by (i, j)."""
    if not 0 <= max_distance < 4 * BANDS:
        raise ValueError(f"max_distance must be in 0..{4 * BANDS - 1}, got {max_distance}")
    radius = max_distance // BANDS
    hashes = np.array(values, dtype=np.uint64)
    probes = np.array([sum(1 << bit for bit in bits) for r in range(radius + 1)
                       for bits in combinations(range(BAND_BITS), r)], np.int64)
    firsts, seconds = [], []
    for band in range(BANDS):
        keys = _band(hashes, band)
        order = np.argsort(keys, kind="stable")
        # Where each of the 2^16 band keys starts in the sorted order and how many hold it: a probe's equal keys
        # are then two table look-ups per query (a binary search per query grew with log n).
        per_key = np.bincount(keys, minlength=1 << BAND_BITS)
        starts = np.cumsum(per_key) - per_key
        for probe in probes:
            wanted = keys ^ probe
            count = per_key[wanted]
            for queries in _blocks(count):
                first, second = _looked_up(queries, count[queries], starts[wanted[queries]], order)
                pick = first < second
                first, second = first[pick], second[pick]
                differ = hashes[first] ^ hashes[second]
                pick = popcount(differ) <= max_distance  # the few real matches, kept small
                # A pair is taken in the first band where it is within the probes' radius, so it is found once.
                for earlier in range(band):
                    pick &= _POPCOUNT16[_band(differ, earlier)] > radius
                first, second = first[pick], second[pick]
                if keep is not None and len(first):
                    pick = keep(first, second)
                    first, second = first[pick], second[pick]
                firsts.append(first)
                seconds.append(second)
    first = np.concatenate(firsts) if firsts else np.zeros(0, np.int64)
    second = np.concatenate(seconds) if seconds else np.zeros(0, np.int64)
    ordered = np.lexsort((second, first))
    first, second = first[ordered], second[ordered]
    return first, second, popcount(hashes[first] ^ hashes[second])


# Candidate pairs a look-up block holds at most (clustered hashes fill a few keys). Each pair of a block holds its
# indices and, in `within`, 16 block means a side: 1 << 18 was 15.5 MiB of an audit's peak at 10,000 real-size
# avatars (tracemalloc, the screening alone), 1 << 14 is 5.6 MiB for the same CPU time (0.28 s against 0.31 s).
PAIRS_PER_LOOKUP = 1 << 14


def _blocks(count: np.ndarray) -> list[np.ndarray]:
    """The queries (indices into `count`, each query's number of equal keys) in blocks of about PAIRS_PER_LOOKUP
    pairs: on clustered hashes one probe's look-ups held tens of MiB of index arrays at 10,000 pieces."""
    totals = np.cumsum(count)
    if not len(totals) or not totals[-1]:
        return []
    cuts = np.searchsorted(totals, np.arange(PAIRS_PER_LOOKUP, totals[-1], PAIRS_PER_LOOKUP), side="right")
    present = np.flatnonzero(count)
    return [block for block in np.split(present, np.searchsorted(present, cuts)) if len(block)]


def _looked_up(queries: np.ndarray, count: np.ndarray, low: np.ndarray,
               order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(query, found) pairs: each query with the positions low .. low + count - 1 of the sorted keys."""
    first = np.repeat(queries, count)
    offsets = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    return first, order[np.repeat(low, count) + offsets]


_POPCOUNT16 = _POPCOUNT[np.arange(1 << 16) & 0xFF] + _POPCOUNT[np.arange(1 << 16) >> 8]


def _band(values: np.ndarray, band: int) -> np.ndarray:
    """The `band`-th 16 bits of each uint64, as int64 (a table index)."""
    return ((values >> np.uint64(band * BAND_BITS)) & np.uint64((1 << BAND_BITS) - 1)).astype(np.int64)


def find_duplicates(hashes: list[tuple[int, int]], max_distance: int, tiles: Sequence[bytes] | None = None,
                    max_tile_diff: float = float("inf")) -> dict[int, Match]:
    """`hashes`: (token id, hash) in priority order. A token whose hash lies within `max_distance` of a token kept
    before it (and, given `tiles`, the tile signatures in the same order, whose tile difference is within
    `max_tile_diff`) is a duplicate of the nearest such token (ties: the earlier); duplicates are not kept (they will
    be resampled), so each is named against a piece that stays, and each pair is decided once."""
    table = signature_table(tiles) if tiles is not None else None
    keep = None if table is None else lambda a, b: within(table, a, b, max_tile_diff)
    first, second, dist = near_pairs([value for _, value in hashes], max_distance, keep)
    diffs = tile_differences(table, first, second).tolist() if table is not None else [None] * len(first)
    earlier: dict[int, list[tuple[int, int, float | None]]] = {}
    for i, j, d, t in zip(first.tolist(), second.tolist(), dist.tolist(), diffs):
        earlier.setdefault(j, []).append((d, i, t))
    kept: set[int] = set()
    duplicates = {}
    for position, (token_id, _) in enumerate(hashes):
        for d, i, t in sorted(m for m in earlier.get(position, ()) if m[1] in kept):
            if t is None or t <= max_tile_diff:
                duplicates[token_id] = Match(hashes[i][0], d, t)
                break
        else:
            kept.add(position)
    return duplicates


PAIRS_PER_BLOCK = 1024  # tile differences computed at a time: ~4 MiB held (both sides, their differences, a grid)
COARSE_GRID = 4  # blocks of the cheap bound: every tile grid (4, 8, 16) divides them


@dataclass(frozen=True)
class SignatureTable:
    rows: np.ndarray  # (n, 1 + SIGNATURE_SIDE**2) uint8: each signature's grid byte and luma
    cells: np.ndarray  # (n, CELL_GRID**2) uint16: each signature's luma summed 2x2, the cells grids up to 16 compare
    coarse: np.ndarray  # (n, COARSE_GRID**2) float32: each signature's luma averaged over 4x4 blocks


def signature_table(signatures: Sequence[bytes]) -> SignatureTable:
    rows = np.frombuffer(b"".join(signatures), np.uint8).reshape(len(signatures), 1 + SIGNATURE_SIDE * SIGNATURE_SIDE)
    group = SIGNATURE_SIDE // CELL_GRID
    cells = rows[:, 1:].reshape(-1, CELL_GRID, group, CELL_GRID, group).sum(axis=(2, 4), dtype=np.uint16)
    block = SIGNATURE_SIDE // COARSE_GRID
    coarse = rows[:, 1:].reshape(-1, COARSE_GRID, block, COARSE_GRID, block).mean(axis=(2, 4), dtype=np.float32)
    count = len(signatures)
    return SignatureTable(rows, cells.reshape(count, CELL_GRID ** 2), coarse.reshape(count, COARSE_GRID ** 2))


def within(table: SignatureTable, first: np.ndarray, second: np.ndarray, max_tile_diff: float) -> np.ndarray:
    """Which pairs' tile difference is within `max_tile_diff`. A pair whose 4x4 block means differ by more is not
    (a tile's mean |difference| is at least the |difference of the means| of the block holding it, at every grid),
    so only the rest are compared tile by tile: most candidate pairs of layered art fail this bound, read from 16
    numbers a side where the tiles need 257."""
    bound = np.abs(table.coarse[first] - table.coarse[second]).max(axis=1)
    keep = bound <= max_tile_diff + 0.001  # the margin: a tile difference is rounded to 3 decimals
    close = np.flatnonzero(keep)
    keep[close] = tile_differences(table, first[close], second[close]) <= max_tile_diff
    return keep


def tile_differences(table: SignatureTable, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """`tile_difference` of each pair (rows first[k] and second[k] of `table`), in numpy a block at a time: a
    collection of layered art has many candidate pairs (225,291 among 10,000 real-size avatars), one Python call
    each took seconds.

    The difference inside a tile is taken between the table's 16x16 cells (a sixteenth of the side) on grids up to
    16, and between the signature's own 32x32 cells on the 32 grid: a tile's mean |difference| grows as its cells
    get finer (a 1-pixel resize of a 64 px image, 2.9 levels on its 4 px cells, 7.9 on 2 px ones), so only the 32
    grid, whose tiles are 12-16 px, compares cells as fine as the signature's."""
    out = np.zeros(len(first))
    for start in range(0, len(first), PAIRS_PER_BLOCK):
        ones, others = first[start:start + PAIRS_PER_BLOCK], second[start:start + PAIRS_PER_BLOCK]
        grids = np.minimum(table.rows[ones, 0], table.rows[others, 0])
        for grid in np.unique(grids).tolist():
            pick = np.flatnonzero(grids == grid)
            if grid > CELL_GRID:
                a, b, summed = table.rows[ones[pick], 1:], table.rows[others[pick], 1:], 1
            else:
                a, b, summed = table.cells[ones[pick]], table.cells[others[pick]], (SIGNATURE_SIDE // CELL_GRID) ** 2
            out[start + pick] = _largest_tile_mean(np.maximum(a, b) - np.minimum(a, b), grid, summed)
    return out


def _largest_tile_mean(diff: np.ndarray, grid: int, summed: int) -> np.ndarray:
    """Each row's largest mean over a tile of a `grid` of tiles, from its cells' |differences| (`diff`, each a sum
    of `summed` signature cells): in integers until the one division."""
    cells = int(np.sqrt(diff.shape[1]))
    tile = cells // grid
    sums = diff.reshape(-1, grid, tile, grid, tile).sum(axis=(2, 4), dtype=np.int32) if tile > 1 else diff
    return np.round(sums.reshape(len(sums), -1).max(axis=1) / (tile * tile * summed), 3)
