"""The faster pixel metrics give what the straightforward code gave, metric by metric and verdict by verdict.

Each reference below is mintprep's code before the guards were made a small multiple of a decode (issue 32), kept
here as the definition: channel spreads by numpy's two-pass float64 `std` per channel and region, the FFT mask
and column weights built per image, 4x4 block means from the blocks copied out to rows, constant tiles by comparing
every pixel with its tile's first, shares and dark rows by `mean`, edge maps on the interleaved channels, the luma
histogram by `np.bincount`. Most rewrites keep every bit (integer and boolean work, or the same float operations in
the same order); the channel spreads are exact integer sums where numpy's `std` rounds, so those are held to 1e-12
raw and to the dict's rounding. The images: the vectorised-metrics
corpus (layered art 256-512 px, banded, quantized gradients, pixel art, noise, black, 1-pixel lines), every
legitimate and broken image of the guard corpus, the hard cases (half-black, banded skies), and 160 seeded random
images of random shapes (1-300 px) and kinds (near-flat with a few changed pixels, dead tiles over art, noise,
gradients, art crops)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import skimage.data

from mintprep.guards import pixel_metrics as pm
from mintprep.guards.image_guards import pixel_metrics
from mintprep.guards.settings import GuardSettings
from tests.generate.guard_corpus import BROKEN, LEGIT
from tests.generate.test_hard_cases import CAUGHT
from tests.generate.test_vectorised_metrics import IMAGES, quantized_gradient, reference_staircase_share
from tests.support.real_art import art_rgb

GUARDS = GuardSettings()


def reference_edge_maps(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    def largest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        diff = np.maximum(a, b) - np.minimum(a, b)
        return np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2])

    return largest(rgb[:, 1:], rgb[:, :-1]), largest(rgb[1:], rgb[:-1])


def reference_luma_histogram(luma: np.ndarray) -> np.ndarray:
    return np.bincount(np.rint(luma).astype(np.uint8).ravel(), minlength=256)


def reference_spread(rgb: np.ndarray, luma: np.ndarray) -> float:
    return float(max(luma.std(dtype=np.float64), *(rgb[..., c].std(dtype=np.float64) for c in range(3))))


def reference_feature_share(mask: np.ndarray) -> float:
    linked = np.zeros_like(mask)
    linked[:, 1:] |= mask[:, :-1]
    linked[:, :-1] |= mask[:, 1:]
    linked[1:] |= mask[:-1]
    linked[:-1] |= mask[1:]
    return float((mask & linked).mean())


def reference_coarse_corr(luma: np.ndarray) -> float:
    h, w = (luma.shape[0] // pm.COARSE) * pm.COARSE, (luma.shape[1] // pm.COARSE) * pm.COARSE
    if h < 2 * pm.COARSE or w < 2 * pm.COARSE:
        return 0.0
    blocks = luma[:h, :w].reshape(h // pm.COARSE, pm.COARSE, w // pm.COARSE, pm.COARSE).transpose(0, 2, 1, 3)
    blocks = blocks.reshape(h // pm.COARSE, w // pm.COARSE, pm.COARSE * pm.COARSE)
    ranges = blocks.max(axis=-1) - blocks.min(axis=-1)
    return max(pm.neighbour_corr(blocks.mean(axis=-1)), pm.neighbour_corr(ranges))


def reference_hf_ratio(luma: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft2(luma - luma.mean())) ** 2
    weight = np.full(spectrum.shape[1], 2.0)
    weight[0] = 1.0
    if luma.shape[1] % 2 == 0:
        weight[-1] = 1.0
    total = float((spectrum * weight).sum())
    if total <= 0:
        return 0.0
    fy = np.fft.fftfreq(luma.shape[0])[:, None]
    fx = np.fft.rfftfreq(luma.shape[1])[None, :]
    high = np.hypot(fx, fy) > 0.25
    return float((spectrum * weight)[high].sum() / total)


def reference_dead_tile_share(rgb: np.ndarray, luma: np.ndarray) -> float:
    tile = pm.TILE
    bh, bw = rgb.shape[0] // tile, rgb.shape[1] // tile
    if bh < 2 or bw < 2:
        return 0.0
    blocks = rgb[: bh * tile, : bw * tile].reshape(bh, tile, bw, tile, 3).transpose(0, 2, 1, 3, 4)
    first = blocks[:, :, :1, :1, :]
    constant = (blocks == first).all(axis=(2, 3, 4))
    if not constant.any():
        return 0.0
    colour = np.where(constant, first[:, :, 0, 0, :].astype(np.int64) @ np.array([1 << 16, 1 << 8, 1]), -1)
    region = pm._regions(colour)
    textured = pm._textured(luma, bh, bw, pm._next_to(constant))
    value = first[:, :, 0, 0, :]
    hard = np.zeros(bh * bw, np.int64)
    edges = np.zeros(bh * bw, np.int64)
    left, right = (slice(None), slice(None, -1)), (slice(None), slice(1, None))
    up, down = (slice(None, -1), slice(None)), (slice(1, None), slice(None))
    for own, other, line in ((left, right, blocks[:, 1:, :, 0]), (right, left, blocks[:, :-1, :, -1]),
                             (up, down, blocks[1:, :, 0]), (down, up, blocks[:-1, :, -1])):
        pair = constant[own] & ~constant[other]
        continues = (line[pair] == value[own][pair][:, None, :]).all(axis=-1).any(axis=-1)
        np.add.at(edges, region[own][pair], 1)
        np.add.at(hard, region[own][pair], (~continues & textured[other][pair]).astype(np.int64))
    dead = np.flatnonzero(hard * 2 > edges)
    return float(np.isin(region[constant], dead).sum() / (bh * bw))


def reference_dark_run(luma: np.ndarray, black_level: float, lit_share: float = 0.01) -> tuple[float, float]:
    dark = (luma > black_level).mean(axis=1) < lit_share
    if not dark[-1] or dark.all():
        return 0.0, 0.0
    top = int(np.flatnonzero(~dark)[-1]) + 1
    step = float(np.abs(luma[top - 1].astype(np.float64) - luma[top]).mean())
    return (luma.shape[0] - top) / luma.shape[0], step


def reference_pixel_metrics(rgb: np.ndarray, guards: GuardSettings) -> dict[str, float]:
    """`pixel_metrics` as it was, on the reference metrics above."""
    luma = pm.luma_of(rgb)
    histogram = reference_luma_histogram(luma)
    p1, p99 = pm.percentile_level(histogram, 1), pm.percentile_level(histogram, 99)
    inset = pm.border_width(rgb.shape, guards.border_share)
    if min(rgb.shape[:2]) <= 2 * inset + 1:
        inset = 0
    interior = rgb[inset:-inset, inset:-inset] if inset else rgb
    maps = reference_edge_maps(rgb)
    dark_run, dark_cut = reference_dark_run(luma, guards.black_level)
    return {
        "luma_p1": p1,
        "luma_p99": p99,
        "luma_std": round(float(luma.std(dtype=np.float64)), 3),
        "spread": round(reference_spread(rgb, luma), 3),
        "edge_share": round(pm.edge_share(maps, guards.edge_step), 5),
        "lit_feature_share": round(reference_feature_share(luma > guards.black_level), 5),
        "dark_feature_share": round(reference_feature_share(luma < guards.white_level), 5),
        "interior_spread": round(reference_spread(interior, luma[inset:-inset, inset:-inset] if inset else luma), 3),
        "interior_edge_share": round(pm.edge_share(maps, guards.edge_step, inset), 5),
        "dead_tile_share": round(reference_dead_tile_share(rgb, luma), 4),
        "neighbour_corr": round(pm.neighbour_corr(luma), 4),
        "coarse_corr": round(reference_coarse_corr(luma), 4),
        "hf_ratio": round(reference_hf_ratio(luma), 4),
        "levels": float(np.count_nonzero(histogram)),
        "empty_level_share": round(pm.empty_level_share(histogram, p1, p99), 4),
        "dark_run_share": round(dark_run, 4),
        "dark_cut": round(dark_cut, 2),
        "banded_share": round(max(reference_staircase_share(rgb[..., c]) for c in range(3)), 4),
    }


def random_image(seed: int) -> np.ndarray:
    """A seeded image of a random shape and kind, the kinds chosen to sit near what the rewrites could get wrong:
    spreads of a few changed pixels (rounding), tile edges and partial tiles, odd FFT shapes, 4x4 remainders."""
    rng = np.random.default_rng(seed)
    height, width = (int(n) for n in rng.integers(1, 301, 2))
    kind = seed % 5
    if kind == 0:  # near-flat: one colour with a few pixels changed by a level or two
        rgb = np.broadcast_to(rng.integers(0, 256, 3, dtype=np.uint8), (height, width, 3)).copy()
        for _ in range(int(rng.integers(1, 6))):
            y, x, c = int(rng.integers(height)), int(rng.integers(width)), int(rng.integers(3))
            rgb[y, x, c] = np.clip(int(rgb[y, x, c]) + int(rng.choice([-2, -1, 1, 2])), 0, 255)
        return rgb
    if kind == 1:  # a photo crop with constant tiles (a lost decode tile's colour) on the 8-pixel grid
        y, x = int(rng.integers(0, 513 - height)), int(rng.integers(0, 513 - width))
        rgb = skimage.data.astronaut()[y:y + height, x:x + width].copy()
        for _ in range(int(rng.integers(1, 5))):
            y, x = 8 * int(rng.integers(max(1, height // 8))), 8 * int(rng.integers(max(1, width // 8)))
            rgb[y:y + 8 * int(rng.integers(1, 4)), x:x + 8 * int(rng.integers(1, 4))] = rng.integers(0, 256, 3)
        return rgb
    if kind == 2:
        return rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    if kind == 3:
        return quantized_gradient(height, width, int(rng.integers(1, 9)), seed)
    return art_rgb(int(rng.integers(1, 200)), 384)[:height, :width].copy()


CORPUS = {**{f"vectorised: {name}": make for name, make in IMAGES.items()},
          **{f"legit: {name}": make for name, make in LEGIT.items()},
          **{f"broken: {name}": make for name, (make, _) in BROKEN.items()},
          **{f"hard: {name}": make for name, (make, _) in CAUGHT.items()},
          **{f"random {seed}": (lambda seed=seed: random_image(seed)) for seed in range(160)}}


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("name", list(CORPUS))
def test_every_metric_and_so_every_verdict_is_what_the_reference_gives(name: str) -> None:
    rgb = CORPUS[name]()
    expected, found = reference_pixel_metrics(rgb, GUARDS), pixel_metrics(rgb, GUARDS)
    assert list(found) == list(expected)
    assert all(same(found[key], expected[key]) for key in expected), {
        key: (expected[key], found[key]) for key in expected if not same(found[key], expected[key])}


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_rewritten_metric_unrounded(name: str) -> None:
    """Bit for bit where the arithmetic is kept; the channel spreads within 1e-12 of numpy's two-pass `std`."""
    rgb = CORPUS[name]()
    luma = pm.luma_of(rgb)
    assert all(np.array_equal(new, old) for new, old in zip(pm.edge_maps(rgb), reference_edge_maps(rgb), strict=True))
    assert np.array_equal(pm.luma_histogram(luma), reference_luma_histogram(luma))
    for new, old in ((pm.hf_ratio, reference_hf_ratio), (pm.coarse_corr, reference_coarse_corr)):
        assert same(new(luma), old(luma)), new.__name__
    assert pm.dead_tile_share(rgb, luma) == pm.dead_tile_share(rgb, luma, pm.edge_maps(rgb)) == \
        reference_dead_tile_share(rgb, luma)
    for mask in (luma > GUARDS.black_level, luma < GUARDS.white_level):
        assert same(pm.feature_share(mask), reference_feature_share(mask))
    assert pm.dark_run(luma, GUARDS.black_level) == reference_dark_run(luma, GUARDS.black_level)
    inset = pm.border_width(rgb.shape, GUARDS.border_share)
    inset = 0 if min(rgb.shape[:2]) <= 2 * inset + 1 else inset
    interior = rgb[inset:-inset, inset:-inset] if inset else rgb
    whole_stds, interior_stds = pm.channel_stds(rgb, inset)
    for found, image in ((whole_stds, rgb), (interior_stds, interior)):
        expected = [float(image[..., c].std(dtype=np.float64)) for c in range(3)]
        assert np.allclose(found, expected, rtol=1e-12, atol=1e-12), (found, expected)


def test_the_corpus_reaches_every_branch_it_compares() -> None:
    """The comparisons above mean something: the corpus has dead tiles found, constant tiles that are not dead
    (with and without a textured tile beside them), banding, dark runs, noise and smooth art, 4x4 remainders and
    images too small to coarsen or tile."""
    images = {name: make() for name, make in CORPUS.items()}
    metrics = {name: pixel_metrics(rgb, GUARDS) for name, rgb in images.items()}
    assert sum(m["dead_tile_share"] > 0 for m in metrics.values()) >= 20
    live = []  # constant tiles found, none dead: (any textured tile beside them, so the edges were weighed)
    for rgb, m in zip(images.values(), metrics.values()):
        bh, bw = rgb.shape[0] // pm.TILE, rgb.shape[1] // pm.TILE
        if min(bh, bw) >= 2 and m["dead_tile_share"] == 0:
            constant = pm._constant_tiles(pm.edge_maps(rgb), bh, bw)
            if constant.any():
                live.append(bool(pm._textured(pm.luma_of(rgb), bh, bw, pm._next_to(constant)).any()))
    assert len(live) >= 40 and sum(live) >= 5
    assert sum(m["banded_share"] > GUARDS.max_banded_share for m in metrics.values()) >= 20
    assert sum(m["dark_run_share"] > 0 for m in metrics.values()) >= 5
    assert sum(m["hf_ratio"] > GUARDS.max_hf_ratio for m in metrics.values()) >= 40
    assert sum(m["coarse_corr"] > 0.9 for m in metrics.values()) >= 40
    assert sum(bool(rgb.shape[0] % 4 and rgb.shape[1] % 4) and min(rgb.shape[:2]) >= 8
               for rgb in images.values()) >= 60
    assert sum(min(rgb.shape[:2]) < 16 for rgb in images.values()) >= 10
    assert sum(0 < m["spread"] < 1 for m in metrics.values()) >= 20  # near-flat: a few pixels off by a level
