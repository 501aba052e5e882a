"""Measurements of an HxWx3 uint8 image that the pixel guards decide on (numpy, no thresholds).

Each function answers one question a guard asks: how dark or bright is the image, how much does it vary, is the
variation structure (edges, connected features, coarse-scale correlation) or pixel noise, is part of it dead
(exactly constant tiles with hard edges against texture), is only its border alive.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from PIL import Image

# ITU-R BT.601 luma weights: what "dark" and "flat" mean to a viewer, not per channel.
LUMA_WEIGHTS = np.array([0.299, 0.587, 0.114])
# Decoders and tiled VAEs work on an 8-pixel grid (SD latents are 1/8 of the image): dead tiles align with it.
TILE = 8
# A block with at least this many distinct luma levels is texture (a photo), not a flat fill or an anti-aliased
# edge between two colours (those show a handful of levels in 64 pixels).
TEXTURE_LEVELS = 12
# Coarse scale for the noise guard: 4x4 block means keep a dithered or line-drawn picture and average
# independent pixel noise away (its correlation stays ~0 at every scale). `_block_means` is written for 4x4.
COARSE = 4


def luma_of(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32) @ LUMA_WEIGHTS.astype(np.float32)


def luma_histogram(luma: np.ndarray) -> np.ndarray:
    """Pixel counts per integer luma level 0..255 (percentiles, level counts and gaps all read from it). Pillow's
    histogram of the levels: 0.11 ms a 256 px image where `np.bincount` (which widens them to intp) took 0.15."""
    return np.array(Image.fromarray(np.rint(luma).astype(np.uint8)).histogram(), dtype=np.int64)


def percentile_level(histogram: np.ndarray, q: float) -> float:
    """The integer luma level at percentile `q` (0..100): the lowest level with at least q% of pixels at or below."""
    cumulative = np.cumsum(histogram)
    return float(np.searchsorted(cumulative, cumulative[-1] * q / 100.0))


def luma_std(luma: np.ndarray, inset: int = 0) -> float:
    """Standard deviation of luma, `inset` pixels in from every side."""
    return float((luma[inset:-inset, inset:-inset] if inset else luma).std(dtype=np.float64))


def channel_stds(rgb: np.ndarray, inset: int = 0) -> tuple[list[float], list[float]]:
    """Standard deviations of R, G and B over the whole image and `inset` pixels in from every side.

    From integer sums of the values and their squares, per column of the interleaved rows (a fast reduction along
    the first axis) and then per channel; the interior's columns are the whole's less the top and bottom rows. The
    variance (n * sum of squares - sum**2) / n**2 is then exact in Python integers, where numpy's float64 `std` made
    two passes per channel and per region."""
    height, width = rgb.shape[:2]
    values = rgb.reshape(height, width * 3)
    squares = values.astype(np.uint16)
    squares *= squares  # 255**2 fits
    column_type = np.uint32 if height * 255 ** 2 < 2 ** 32 else np.uint64
    whole, interior = [], []
    for plane in (values, squares):
        columns = plane.sum(axis=0, dtype=column_type).astype(np.int64)
        whole.append(columns.reshape(width, 3).sum(axis=0))
        if inset:
            columns -= plane[:inset].sum(axis=0, dtype=np.int64) + plane[-inset:].sum(axis=0, dtype=np.int64)
        interior.append(columns.reshape(width, 3)[inset:width - inset].sum(axis=0))
    return (_stds(*whole, height * width),
            _stds(*interior, max(0, height - 2 * inset) * max(0, width - 2 * inset)))


def _stds(totals: np.ndarray, squares: np.ndarray, count: int) -> list[float]:
    """Standard deviations from the exact sums and sums of squares of `count` integer values each."""
    if not count:
        return [float("nan")] * len(totals)
    return [math.sqrt((count * int(square) - int(total) ** 2) / count ** 2) for total, square in zip(totals, squares)]


def edge_maps(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest per-channel difference between each pixel and its right / lower neighbour (uint8). On the channels
    copied out to planes, so that every step is on contiguous bytes: 0.12 ms a 256 px image, copy included, where
    the channel maximum over the interleaved differences (every third byte) made it 0.17."""
    planes = np.ascontiguousarray(rgb.transpose(2, 0, 1))

    def largest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        diff = np.maximum(a, b)
        diff -= np.minimum(a, b)  # |a - b| without leaving uint8
        return np.maximum(np.maximum(diff[0], diff[1]), diff[2])

    return largest(planes[:, :, 1:], planes[:, :, :-1]), largest(planes[:, 1:], planes[:, :-1])


def edge_share(maps: tuple[np.ndarray, np.ndarray], step: float, inset: int = 0) -> float:
    """Share of horizontally/vertically adjacent pixel pairs (`inset` pixels in from every side) that differ by
    more than `step` in some channel."""
    right, down = maps
    if inset:
        right, down = right[inset:-inset, inset:-inset - 1], down[inset:-inset - 1, inset:-inset]
    total = right.size + down.size
    return float((np.count_nonzero(right > step) + np.count_nonzero(down > step)) / total) if total else 0.0


def feature_share(mask: np.ndarray) -> float:
    """Share of pixels in `mask` that have a 4-neighbour in it too: lines, dots and shapes count, isolated
    single-pixel speckle (what a NaN decode leaves of the finite values) does not."""
    linked = np.zeros_like(mask)
    linked[:, 1:] |= mask[:, :-1]
    linked[:, :-1] |= mask[:, 1:]
    linked[1:] |= mask[:-1]
    linked[:-1] |= mask[1:]
    return float(np.count_nonzero(mask & linked) / mask.size)


def neighbour_corr(luma: np.ndarray) -> float:
    """Mean lag-1 correlation along rows and columns: ~0 for pixel noise, > 0.9 for photographs.
    Defined as 1 for a constant image (no variation is the opposite of noise; the flat guard catches it)."""
    values = []
    for a, b in ((luma[:, :-1], luma[:, 1:]), (luma[:-1, :], luma[1:, :])):
        if a.size == 0:
            continue
        a, b = a - a.mean(), b - b.mean()
        denominator = np.sqrt((a * a).sum() * (b * b).sum())
        values.append(float((a * b).sum() / denominator) if denominator > 0 else 1.0)
    return float(np.mean(values)) if values else 1.0


def coarse_corr(luma: np.ndarray) -> float:
    """`neighbour_corr` at a 4x4 block scale, of the block means and of the block ranges (max - min), whichever is
    higher. A dithered photo is smooth in its means, a thin line drawing in its ranges (where the ink runs);
    independent pixel noise is uncorrelated in both. An image too small to coarsen counts as uncorrelated."""
    h, w = (luma.shape[0] // COARSE) * COARSE, (luma.shape[1] // COARSE) * COARSE
    if h < 2 * COARSE or w < 2 * COARSE:
        return 0.0
    cropped = luma[:h, :w]
    ranges = _per_block(np.maximum, cropped) - _per_block(np.minimum, cropped)
    blocks = cropped.reshape(h // COARSE, COARSE, w // COARSE, COARSE)  # a view: (block row, y, block col, x)
    return max(neighbour_corr(_block_means(blocks)), neighbour_corr(ranges))


def _per_block(combine: np.ufunc, image: np.ndarray) -> np.ndarray:
    """`combine` (np.maximum, np.minimum) over each COARSE x COARSE block, on strided views (a reduction over the
    block axes of a reshaped view took 20 times longer)."""
    rows = functools.reduce(combine, (image[y::COARSE] for y in range(COARSE)))
    return functools.reduce(combine, (rows[:, x::COARSE] for x in range(COARSE)))


def _block_means(blocks: np.ndarray) -> np.ndarray:
    """The float32 mean of each 4x4 block, added in the order numpy's pairwise sum adds a block's 16 values laid
    out in a row (eight partial sums a[j] + a[j + 8], then a tree: ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
    r7))), so that it equals `mean(axis=-1)` of the blocks copied out to rows to the last bit, without that copy."""
    rows = blocks[:, :2] + blocks[:, 2:]  # r[j] for j = 4 * y + x, y in 0..1
    pairs = rows[..., 0::2] + rows[..., 1::2]
    halves = pairs[..., 0] + pairs[..., 1]
    return (halves[:, 0] + halves[:, 1]) / np.float32(COARSE * COARSE)


def hf_ratio(luma: np.ndarray) -> float:
    """Share of the (mean-removed) spectral energy beyond half the Nyquist frequency: ~0.8 for white noise."""
    weight, high = _spectrum_weights(luma.shape)
    energy = np.abs(np.fft.rfft2(luma - luma.mean())) ** 2 * weight
    total = float(energy.sum())
    if total <= 0:
        return 0.0
    return float(energy.ravel()[high].sum() / total)


@functools.lru_cache(maxsize=8)
def _spectrum_weights(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For an rfft2 of `shape`: each column's weight (rfft2 keeps the non-negative x frequencies only; every column
    but 0 (and Nyquist) stands for two) and the flat indices of the frequencies beyond half the Nyquist (in
    cycles/pixel; Nyquist is 0.5), in the order a boolean mask would take them. The same for every image of a
    collection, so kept per shape."""
    weight = np.full(shape[1] // 2 + 1, 2.0)
    weight[0] = 1.0
    if shape[1] % 2 == 0:
        weight[-1] = 1.0
    fy = np.fft.fftfreq(shape[0])[:, None]
    fx = np.fft.rfftfreq(shape[1])[None, :]
    high = np.flatnonzero(np.hypot(fx, fy) > 0.25)
    weight.flags.writeable = high.flags.writeable = False
    return weight, high


def empty_level_share(histogram: np.ndarray, p1: float, p99: float) -> float:
    """Share of integer luma levels in [p1, p99] that no pixel uses: banding and palettes leave regular gaps."""
    low, high = int(p1), int(p99)
    if high <= low:
        return 0.0
    return float((histogram[low: high + 1] == 0).mean())


def border_width(shape: tuple[int, ...], share: float) -> int:
    return max(1, int(round(min(shape[0], shape[1]) * share)))


def dead_tile_share(rgb: np.ndarray, luma: np.ndarray, maps: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """Share of the image in exactly-constant 8x8 tiles forming regions whose edges are hard against texture.

    A NaN that a decode turned into black (or a tile a tiled VAE lost) is a grid-aligned rectangle of one exact
    colour with textured neighbours right up to its edge. A flat region of real art ends anywhere: the pixels just
    across its tile border still include its colour, or the neighbour is a flat fill / a two-colour edge rather
    than texture. A region (4-connected constant tiles of one colour) is dead when most of its border is hard.
    `maps`: the image's `edge_maps`, where the caller has them."""
    bh, bw = rgb.shape[0] // TILE, rgb.shape[1] // TILE
    if bh < 2 or bw < 2:
        return 0.0
    constant = _constant_tiles(maps or edge_maps(rgb), bh, bw)
    if not constant.any():
        return 0.0
    textured = _textured(luma, bh, bw, _next_to(constant))
    if not textured.any():
        return 0.0  # no edge can be hard, so no region is dead
    blocks = rgb[: bh * TILE, : bw * TILE].reshape(bh, TILE, bw, TILE, 3).transpose(0, 2, 1, 3, 4)
    value = blocks[:, :, 0, 0, :]
    colour = np.where(constant, value.astype(np.int64) @ np.array([1 << 16, 1 << 8, 1]), -1)
    region = _regions(colour)
    hard = np.zeros(bh * bw, np.int64)
    edges = np.zeros(bh * bw, np.int64)
    left, right = (slice(None), slice(None, -1)), (slice(None), slice(1, None))
    up, down = (slice(None, -1), slice(None)), (slice(1, None), slice(None))
    # (constant side, neighbour side, the neighbour's pixels along the shared border)
    for own, other, line in ((left, right, blocks[:, 1:, :, 0]), (right, left, blocks[:, :-1, :, -1]),
                             (up, down, blocks[1:, :, 0]), (down, up, blocks[:-1, :, -1])):
        pair = constant[own] & ~constant[other]
        continues = (line[pair] == value[own][pair][:, None, :]).all(axis=-1).any(axis=-1)
        np.add.at(edges, region[own][pair], 1)
        np.add.at(hard, region[own][pair], (~continues & textured[other][pair]).astype(np.int64))
    dead = np.flatnonzero(hard * 2 > edges)
    return float(np.isin(region[constant], dead).sum() / (bh * bw))


def _constant_tiles(maps: tuple[np.ndarray, np.ndarray], bh: int, bw: int) -> np.ndarray:
    """The bh x bw tiles of one exact colour: no pixel in the tile differs from its right or lower neighbour inside
    it (the edge maps are 0 exactly where two pixels are equal in every channel)."""
    right, down = maps
    height, width = bh * TILE, bw * TILE
    changed = np.zeros((height, width), np.uint8)
    changed[:, :-1] = right[:height, :width - 1]
    changed[:, TILE - 1::TILE] = 0  # the pair across a tile's right side
    below = np.zeros((height, width), np.uint8)
    below[:-1] = down[:height - 1, :width]
    inside = changed.reshape(bh, TILE, width)[:, :-1]  # not the pair across a tile's lower side
    inside |= below.reshape(bh, TILE, width)[:, :-1]
    # Eight uint8 flags of a tile row read as one uint64: a tile is constant when all eight of its rows read 0.
    return ~changed.view(np.uint64).reshape(bh, TILE, bw).any(axis=1)


def _next_to(mask: np.ndarray) -> np.ndarray:
    """Cells with a 4-neighbour in `mask`."""
    near = np.zeros_like(mask)
    near[:, 1:] |= mask[:, :-1]
    near[:, :-1] |= mask[:, 1:]
    near[1:] |= mask[:-1]
    near[:-1] |= mask[1:]
    return near


def _textured(luma: np.ndarray, bh: int, bw: int, where: np.ndarray) -> np.ndarray:
    """Tiles (among `where`) with at least TEXTURE_LEVELS distinct integer luma levels."""
    textured = np.zeros((bh, bw), bool)
    tiles = luma[: bh * TILE, : bw * TILE].reshape(bh, TILE, bw, TILE).transpose(0, 2, 1, 3)
    levels = np.sort(np.rint(tiles[where]).astype(np.int16).reshape(-1, TILE * TILE), axis=-1)
    textured[where] = 1 + (np.diff(levels, axis=-1) != 0).sum(axis=-1) >= TEXTURE_LEVELS
    return textured


def _regions(colour: np.ndarray) -> np.ndarray:
    """Label 4-connected cells of equal colour (>= 0) with the smallest flat index among them (-1: no region)."""
    index = np.arange(colour.size).reshape(colour.shape)
    label = index.copy()
    links = []
    for own, other in (((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                       ((slice(1, None), slice(None)), (slice(None, -1), slice(None)))):
        same = (colour[own] == colour[other]) & (colour[own] >= 0)
        links.append((index[own][same], index[other][same]))
    a = np.concatenate([pair[0] for pair in links])
    b = np.concatenate([pair[1] for pair in links])
    flat = label.ravel()
    while a.size:
        # Hook each link's larger root under its smaller one, then jump pointers to the roots (label propagation
        # with pointer jumping: a few passes instead of one per cell of the widest region).
        ra, rb = flat[a], flat[b]
        low, high = np.minimum(ra, rb), np.maximum(ra, rb)
        if not (low != high).any():
            break
        np.minimum.at(flat, high, low)
        while True:
            jumped = flat[flat]
            if np.array_equal(jumped, flat):
                break
            flat[:] = jumped
    return np.where(colour >= 0, label, -1)


def dark_run(luma: np.ndarray, black_level: float, lit_share: float = 0.01) -> tuple[float, float]:
    """A decode that failed midway: (share of rows in the unbroken run of dark rows that ends at the bottom edge,
    mean luma step across the cut above it). A row is dark when under `lit_share` of it is above `black_level`.
    A VAE writes top to bottom, so what it never finished is a black band below a straight, full-width cut; dark
    ground in a picture ends along a shape, so the row above it is dark in places and the step across is small.
    (0, 0) when there is no such run or when every row is dark (the black guard's case)."""
    dark = np.count_nonzero(luma > black_level, axis=1) / luma.shape[1] < lit_share
    if not dark[-1] or dark.all():
        return 0.0, 0.0
    top = int(np.flatnonzero(~dark)[-1]) + 1  # the first row of the run
    step = float(np.abs(luma[top - 1].astype(np.float64) - luma[top]).mean())
    return (luma.shape[0] - top) / luma.shape[0], step


# Banding: luma steps of 2..8 levels (finer is a smooth gradient, coarser an edge or a chosen palette).
BAND_STEP = (2, 8)
BAND_MIN_STEPS = 3  # a staircase has at least this many steps, all one way
BAND_MIN_SEGMENT = 16  # pixels: a stretch between edges shorter than this is too short to call a gradient
BAND_LINES = 128  # rows (and columns) read at most, evenly spaced
# Pixel pairs measured per pass, at least (a pass holds ~25-30 bytes a pair, art or noise: ~0.25 MiB), or one for
# every 2 pixels of the image, whichever is more: ~15 bytes a pixel, under what the other metrics' float copies of
# the image hold at once (tracemalloc), and a twelfth of the passes a 256 px image took at 8192 pairs a channel.
STAIR_PAIRS_PER_PASS = 8192
STAIR_PIXELS_PER_PAIR = 2


def banded_share(rgb: np.ndarray) -> float:
    """The largest over R, G and B of `staircase_share` (a decode quantizes each channel on its own, so its bands
    are clean per channel and blur into uneven 1-3 level steps in luma)."""
    return float(staircase_shares(rgb.transpose(2, 0, 1)).max())


def staircase_share(channel: np.ndarray) -> float:
    """Share of pixels (rows and columns both read) on a staircase: a stretch without edges (no step above 8
    levels) of at least 16 pixels whose level changes are all 2..8 levels, at least 3 of them, all one way, with
    flat runs between (at most half the pixel pairs change). That is a smooth gradient quantized too coarsely (an
    fp16 VAE decode's banding); a real gradient changes by 0-1 levels per pixel, noise and dither change both ways,
    flat art does not change inside a region, and a palette's steps are edges."""
    return float(staircase_shares(channel[None])[0])


# Per pixel step d (index d + 255): the counts a staircase is decided on, packed in one int64 so that one
# reduction sums them per segment: rising steps, falling steps (both within the edge limit), too-fine steps (1 level).
_FIELD = 21  # bits per count: a segment is at most one line long (< 2^21 pixels, checked)
_STEPS = np.arange(-255, 256)
_STEP_CODES = (((_STEPS > 0) & (_STEPS <= BAND_STEP[1])).astype(np.int64)
               + (((_STEPS < 0) & (_STEPS >= -BAND_STEP[1])).astype(np.int64) << _FIELD)
               + (((_STEPS != 0) & (np.abs(_STEPS) < BAND_STEP[0])).astype(np.int64) << 2 * _FIELD))


def staircase_shares(channels: np.ndarray) -> np.ndarray:
    """`staircase_share` of each of a stack of channels (C, H, W): every sampled row and column of every channel, a
    block of lines at a time, so that what a pass holds is bounded by STAIR_PAIRS_PER_PASS or a share of the image's
    pixels (one pass over every line of every channel held ~7 MiB for a 128 px noise image). Each block is first
    screened for the lines that could hold a staircase (`_possible_stair_lines`), and only those are measured
    (`_staircase_pixels`): on grainy art, a few percent of the lines."""
    count, height, width = channels.shape
    if max(height, width) >= 1 << _FIELD:
        raise ValueError(f"image too wide to measure banding: {channels.shape}")
    stride = max(1, min(height, width) // BAND_LINES)  # every stride-th row and column: a band spans many lines
    denominator = channels[0, ::stride].size + channels[0, :, ::stride].size
    covered = np.zeros(count, np.int64)
    # The lines read: rows, and columns transposed into rows; all channels' lines one after another.
    for part in (channels[:, ::stride], channels[:, :, ::stride].transpose(0, 2, 1)):
        if part.shape[2] < 2:
            continue
        lines = part.reshape(-1, part.shape[2])
        pairs_per_pass = max(STAIR_PAIRS_PER_PASS, height * width // STAIR_PIXELS_PER_PAIR)
        lines_per_pass = max(1, pairs_per_pass // (part.shape[2] - 1))
        screened = 2 * lines_per_pass  # screening holds at most ~15 bytes a pair (noise), half what measuring does
        possible = np.concatenate([first + _possible_stair_lines(lines[first:first + screened])
                                   for first in range(0, lines.shape[0], screened)])
        for first in range(0, possible.size, lines_per_pass):
            chosen = possible[first:first + lines_per_pass]
            np.add.at(covered, chosen // part.shape[1], _staircase_pixels(lines[chosen]))
    return covered / denominator


def _possible_stair_lines(lines: np.ndarray) -> np.ndarray:
    """The indices of `lines` (N, L >= 2, uint8 levels) that hold BAND_MIN_STEPS level changes in a row (no other
    change between them) that each rise by BAND_STEP levels, or each fall by them. A staircase's changes are all
    such and at least that many, so no other line holds one; on grainy art few do (a grain pixel is a rise and a
    fall side by side, a fine gradient's steps are 1 level, a shape's outline an edge). Each change of a line is
    classed once (+1 a rise, -1 a fall, 0 else) and a run of equal non-zero classes looked for; a last column of
    "edges" keeps the runs of two lines apart."""
    n, length = lines.shape
    steps = np.empty((n, length), np.int16)
    np.subtract(lines[:, 1:], lines[:, :-1], out=steps[:, :-1], dtype=np.int16)
    steps[:, -1] = BAND_STEP[1] + 1
    at = np.flatnonzero(steps != 0)  # from a mask: np.flatnonzero of the int16 steps themselves took 4 times longer
    step = steps.ravel().take(at)
    low, high = BAND_STEP
    kind = ((step >= low) & (step <= high)).view(np.int8) - ((step <= -low) & (step >= -high)).view(np.int8)
    starts = at.size - BAND_MIN_STEPS + 1
    if starts <= 0:
        return np.zeros(0, np.intp)
    run = kind[:starts] != 0
    for later in range(1, BAND_MIN_STEPS):
        run &= kind[later:later + starts] == kind[:starts]
    return np.unique(at[:starts][run] // length)


def _staircase_pixels(lines: np.ndarray) -> np.ndarray:
    """Pixels on a staircase in each of `lines` (N, L >= 2, uint8 levels): the lines laid end to end, cut into
    segments at line starts and after edges, and each segment's step counts summed by one `np.add.reduceat` over
    packed codes (30 bincounts an RGB image before)."""
    pairs_per_line = lines.shape[1] - 1
    # Each pair's step (later its index in _STEP_CODES), and one pair of no step after the last (see below).
    steps = np.empty(lines.shape[0] * pairs_per_line + 1, np.int16)
    diff = steps[:-1]
    np.subtract(lines[:, 1:], lines[:, :-1], out=diff.reshape(lines.shape[0], pairs_per_line), dtype=np.int16)
    starts = np.zeros(diff.size, bool)
    starts[::pairs_per_line] = True
    edge = np.abs(diff) > BAND_STEP[1]
    starts[1:] |= edge[:-1]  # the pair after an edge starts a segment; an edge can only end one
    first = np.flatnonzero(starts)
    end = np.empty_like(first)
    end[:-1] = first[1:]
    end[-1] = diff.size
    # Only segments long enough to be a staircase are counted (on noise, few are: what a pass holds stays small).
    long = end - first >= BAND_MIN_SEGMENT - 1
    first, end = first[long], end[long]
    if not first.size:
        return np.zeros(lines.shape[0], np.int64)
    pairs = end - first - edge[end - 1]  # the segment's pairs within the edge limit
    steps[:-1] += 255
    steps[-1] = 255
    # Summed over [first, end) of each long segment: the bounds interleaved, every other sum kept; the pair after
    # the last makes the last segment's end an index reduceat accepts.
    codes = np.add.reduceat(_STEP_CODES.take(steps), np.stack([first, end], axis=1).ravel())[::2]
    mask = (1 << _FIELD) - 1
    up, down, fine = codes & mask, (codes >> _FIELD) & mask, codes >> 2 * _FIELD
    changes = up + down
    stair = ((pairs + 1 >= BAND_MIN_SEGMENT) & (changes >= BAND_MIN_STEPS) & (changes * 2 <= pairs)
             & (fine == 0) & ((up == 0) | (down == 0)))
    return np.bincount(first[stair] // pairs_per_line, weights=pairs[stair] + 1,
                       minlength=lines.shape[0]).astype(np.int64)
