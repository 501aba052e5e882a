"""The vectorised pixel metrics give exactly what the straightforward per-line, per-channel code gave.

`staircase_shares` (one pass over every sampled line of every channel, segment counts by one `np.add.reduceat`)
replaced a loop of 30 `np.bincount` calls an image; the reference below is that loop, kept here as the definition.
The images: real-size layered art with grain (256-512 px), the same with a banded sky, flat/pixel art, noise,
black, a quantized gradient in every channel, odd and tiny shapes (1 px lines, 2x2, non-square)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from mintprep.guards import pixel_metrics as pm
from tests.support.real_art import art_rgb


def reference_staircase_share(channel: np.ndarray) -> float:
    """The per-line definition (mintprep before the vectorised pass; it raised IndexError on an image 1 pixel
    across, whose lines one way have no pixel pairs: those lines are skipped here, as the new pass does)."""
    levels = channel.astype(np.int16)
    stride = max(1, min(levels.shape) // pm.BAND_LINES)
    low, high = pm.BAND_STEP
    covered = 0
    for diff in (np.diff(levels[::stride], axis=1), np.diff(levels[:, ::stride], axis=0).T):
        if diff.shape[1] == 0:
            continue
        edge = np.abs(diff) > high
        starts = np.zeros(diff.shape, bool)
        starts[:, 0] = True
        starts[:, 1:] = edge[:, :-1]
        segment = np.cumsum(starts.ravel()) - 1
        inside = ~edge.ravel()
        ids, d = segment[inside], diff.ravel()[inside]
        count = segment[-1] + 1 if segment.size else 0

        def per_segment(mask: np.ndarray) -> np.ndarray:
            return np.bincount(ids[mask], minlength=count)

        pairs = per_segment(np.ones(d.shape, bool))
        changes = per_segment(d != 0)
        fine = per_segment((d != 0) & (np.abs(d) < low))
        up, down = per_segment(d > 0), per_segment(d < 0)
        stair = ((pairs + 1 >= pm.BAND_MIN_SEGMENT) & (changes >= pm.BAND_MIN_STEPS) & (changes * 2 <= pairs)
                 & (fine == 0) & ((up == 0) | (down == 0)))
        covered += int((pairs[stair] + 1).sum())
    return covered / (levels[::stride].size + levels[:, ::stride].size)


def quantized_gradient(height: int, width: int, step: int, seed: int) -> np.ndarray:
    """Each channel its own smooth ramp quantized to `step` levels (a banded decode), with a little noise in one."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    channels = [(40 + 150 * y / height), (200 - 120 * x / width), (90 + 60 * (x + y) / (height + width))]
    rgb = np.stack([c // step * step for c in channels], -1)
    rgb[..., 2] += rng.integers(-1, 2, (height, width))
    return np.clip(rgb, 0, 255).astype(np.uint8)


def pixel_art(side: int) -> np.ndarray:
    small = np.random.default_rng(side).integers(0, 6, (side // 16, side // 16)) * 40
    rgb = np.stack([small, small[::-1], small.T], -1).astype(np.uint8)
    return np.asarray(Image.fromarray(rgb).resize((side, side), Image.Resampling.NEAREST))


IMAGES = {
    "layered art 256": lambda: art_rgb(7, 256),
    "layered art 384": lambda: art_rgb(12, 384),
    "layered art 512": lambda: art_rgb(31, 512),
    "layered art 384, banded": lambda: (art_rgb(5, 384).astype(np.int16) // 5 * 5).astype(np.uint8),
    "quantized gradients 300x517": lambda: quantized_gradient(300, 517, 4, 1),
    "quantized gradients 640x130": lambda: quantized_gradient(640, 130, 6, 2),
    "quantized gradients 1030x1030": lambda: quantized_gradient(1030, 1030, 3, 3),
    "pixel art 512": lambda: pixel_art(512),
    "noise 256": lambda: np.random.default_rng(9).integers(0, 256, (256, 256, 3), dtype=np.uint8),
    "black 384": lambda: np.zeros((384, 384, 3), np.uint8),
    "row 1x300": lambda: quantized_gradient(1, 300, 3, 4),
    "column 300x1": lambda: quantized_gradient(300, 1, 3, 5),
    "2x2": lambda: quantized_gradient(2, 2, 3, 6),
    "1x1": lambda: np.full((1, 1, 3), 7, np.uint8),
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_staircase_shares_equal_the_per_line_definition(name: str) -> None:
    rgb = IMAGES[name]()
    expected = [reference_staircase_share(rgb[..., c]) for c in range(3)]
    assert pm.staircase_shares(rgb.transpose(2, 0, 1)).tolist() == expected
    assert [pm.staircase_share(rgb[..., c]) for c in range(3)] == expected
    assert pm.banded_share(rgb) == max(expected)


def test_the_banded_images_are_measured_as_banded() -> None:
    """The comparison above means something: some images have stairs, and the art has none."""
    assert pm.banded_share(IMAGES["quantized gradients 300x517"]()) > 0.5
    assert pm.banded_share(IMAGES["layered art 384, banded"]()) > 0.01
    assert pm.banded_share(IMAGES["layered art 384"]()) < 0.01
