"""The staircase screen drops only lines without a staircase: on random-walk images built to sit on its boundary
(runs of 2-8 level rises or falls, flat stretches, 1-level steps, reversals and edges, in lines of every length),
`staircase_shares` equals the per-line definition, and the screen both keeps and drops lines there."""

from __future__ import annotations

import numpy as np
import pytest

from mintprep.guards import pixel_metrics as pm
from tests.generate.test_vectorised_metrics import reference_staircase_share


def random_walk(seed: int) -> np.ndarray:
    """A (3, H, W) stack of channels, each row a walk: per row a drift (rises, falls or none), steps of 0 (often),
    2-8 levels (mostly the drift's way), 1 level, reversals and edges (9-60 levels), clipped to 0..255."""
    rng = np.random.default_rng(seed)
    height, width = (int(n) for n in rng.integers(2, 160, 2))
    drift = rng.choice([-1, 0, 1], (3, height, 1))
    kind = rng.choice(5, (3, height, width - 1), p=[0.72, 0.2, 0.03, 0.03, 0.02])
    size = rng.integers(2, 9, kind.shape)
    sign = np.where(drift == 0, rng.choice([-1, 1], kind.shape), drift)
    step = np.select([kind == 1, kind == 2, kind == 3, kind == 4],
                     [sign * size, rng.choice([-1, 1], kind.shape), -sign * size, rng.integers(9, 61, kind.shape)
                      * rng.choice([-1, 1], kind.shape)], 0)
    start = rng.integers(60, 196, (3, height, 1))
    walk = np.concatenate([start, start + np.cumsum(step, axis=-1)], axis=-1)
    channels = np.clip(walk, 0, 255).astype(np.uint8)
    return channels if seed % 2 else np.ascontiguousarray(channels.transpose(0, 2, 1))  # columns drift too


@pytest.mark.parametrize("seed", range(60))
def test_the_screened_count_is_the_per_line_definition(seed: int) -> None:
    channels = random_walk(seed)
    assert pm.staircase_shares(channels).tolist() == [reference_staircase_share(c) for c in channels]


def test_the_walks_reach_both_sides_of_the_screen() -> None:
    """Lines kept and lines dropped, and staircases found: the comparison above is not vacuous."""
    kept = dropped = banded = 0
    for seed in range(60):
        channels = random_walk(seed)
        lines = channels.reshape(-1, channels.shape[2])
        if lines.shape[1] < 2:
            continue
        possible = pm._possible_stair_lines(lines).size
        kept, dropped = kept + possible, dropped + lines.shape[0] - possible
        banded += bool(pm.staircase_shares(channels).max() > 0)
    assert kept >= 500 and dropped >= 500 and banded >= 30, (kept, dropped, banded)
