"""mintprep's numpy Lanczos resize gives Pillow's `Image.resize` of a greyscale image bit for bit, on shapes of every
kind (square, wide, tall, thinner or smaller than the output, exactly its size) and content that reaches the
clipping of each pass (noise, hard black/white checks, flat, gradients, art); and the hashes, made from one
greyscale image, are the ones made through Pillow before (imagehash's pHash, on the real-size art)."""

from __future__ import annotations

import imagehash
import numpy as np
import pytest
from PIL import Image

from mintprep.guards.near_duplicates import (_DCT, DCT_SIDE, HASH_SIDE, SIGNATURE_SIDE, image_hashes, phash,
                                             tile_grid, tile_signature)
from mintprep.guards.resample import lanczos_resized
from tests.generate.test_fast_guard_metrics import CORPUS
from tests.support.real_art import art_rgb

SIDE = 32


def grey_image(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape = [(1, 1), (1, 300), (300, 1), (32, 32), (32, 100), (100, 32), (31, 33), (33, 31)][seed] if seed < 8 else \
        tuple(int(n) for n in rng.integers(1, 700, 2))
    height, width = shape
    kind = seed % 5
    if kind == 0:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if kind == 1:  # hard checks: the Lanczos lobes overshoot, so both passes clip
        return ((np.indices(shape).sum(axis=0) // int(rng.integers(1, 9))) % 2 * 255).astype(np.uint8)
    if kind == 2:
        return np.full(shape, int(rng.integers(0, 256)), np.uint8)
    if kind == 3:
        y, x = np.mgrid[0:height, 0:width]
        return ((y * 7 + x * 3) % 256).astype(np.uint8)
    return np.asarray(Image.fromarray(art_rgb(seed, 512)[:min(height, 512), :min(width, 512)]).convert("L"))


@pytest.mark.parametrize("seed", range(120))
def test_the_lanczos_resize_is_pillows(seed: int) -> None:
    grey = grey_image(seed)
    expected = np.asarray(Image.fromarray(grey).resize((SIDE, SIDE), Image.Resampling.LANCZOS))
    assert np.array_equal(lanczos_resized(grey, SIDE), expected), grey.shape


def test_the_shapes_reach_every_path() -> None:
    """Wide, square and tall (left to Pillow), thinner than the output and exactly its size on either side."""
    shapes = [grey_image(seed).shape for seed in range(120)]
    assert sum(h < w for h, w in shapes) >= 30 and sum(h > w for h, w in shapes) >= 30
    assert any(h == w for h, w in shapes) and any(w == SIDE for _, w in shapes) and any(h == SIDE for h, _ in shapes)
    assert sum(min(h, w) < SIDE for h, w in shapes) >= 5


def pillow_phash(rgb: np.ndarray) -> int:
    """`phash` as it was made before: Pillow's greyscale and Lanczos resize, then the same DCT and median. (It is
    imagehash's pHash on every image of tests/guards/test_near_duplicates.py; on a few slivers such as 91x2 the two
    DCTs' last bits put a coefficient on the other side of the median, before as now.)"""
    grey = Image.fromarray(rgb).convert("L").resize((DCT_SIDE, DCT_SIDE), Image.Resampling.LANCZOS)
    low = np.round((_DCT @ np.asarray(grey, dtype=np.float64) @ _DCT.T)[:HASH_SIDE, :HASH_SIDE], 6)
    ordered = np.sort(low, axis=None)
    bits = (low > (ordered[ordered.size // 2 - 1] + ordered[ordered.size // 2]) / 2).ravel()
    return int("".join("1" if b else "0" for b in bits), 2)


def pillow_signature(rgb: np.ndarray) -> bytes:
    """`tile_signature` as it was made before: Pillow's greyscale, Pillow's BOX resize."""
    grey = Image.fromarray(rgb).convert("L").resize((SIGNATURE_SIDE, SIGNATURE_SIDE), Image.Resampling.BOX)
    return bytes([tile_grid(*rgb.shape[:2])]) + np.asarray(grey, dtype=np.uint8).tobytes()


HASHED = {**{f"art {side} #{token}": (lambda token=token, side=side: art_rgb(token, side))
             for side in (256, 384, 512) for token in (3, 17, 40)},
          **{name: make for name, make in CORPUS.items() if not name.startswith("random")},
          **{name: make for name, make in CORPUS.items() if name.startswith("random 1")}}


@pytest.mark.parametrize("name", list(HASHED))
def test_the_hashes_are_what_pillows_resize_made(name: str) -> None:
    rgb = HASHED[name]()
    expected = (pillow_phash(rgb), pillow_signature(rgb))
    if name.startswith("art"):
        assert expected[0] == int(str(imagehash.phash(Image.fromarray(rgb))), 16)
    assert (phash(rgb), tile_signature(rgb)) == expected
    assert image_hashes(rgb) == expected
    upscaled = np.repeat(np.repeat(rgb, 2, axis=0), 2, axis=1)[::2, ::2]  # judge_rgb's strided view
    assert image_hashes(upscaled) == expected
