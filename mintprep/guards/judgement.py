"""The one judgement of an image: the pixel guards' verdict, its perceptual hash and its tile signature, from one
decode, as the ledger's `verdicts` table keeps them (`facts`). What `run`'s validate stage, `import` (in its
folder reader's workers) and `audit` record, so no later command decodes the image again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mintprep.guards.image_guards import check_pixels
from mintprep.guards.near_duplicates import hex_hash, image_hashes
from mintprep.guards.settings import GuardSettings


@dataclass(frozen=True)
class Judgement:
    ok: bool
    reasons: list[str]
    facts: dict[str, Any]  # guard, decided_by, properties, phash, tiles, pixels (the verdict's metrics)


def judge_rgb(rgb: np.ndarray, guards: GuardSettings, upscale: int = 1) -> Judgement:
    """Judged (and hashed) at the resolution the image was generated at: mintprep's nearest-neighbour upscale
    (every `upscale`-th pixel) adds nothing."""
    rgb = rgb[::upscale, ::upscale]
    verdict = check_pixels(rgb, guards)
    phash, tiles = image_hashes(rgb)
    facts = {"guard": verdict.guard, "decided_by": verdict.decided_by, "properties": list(verdict.properties),
             "phash": hex_hash(phash), "tiles": tiles.hex(), "pixels": verdict.metrics}
    return Judgement(verdict.ok, list(verdict.reasons), facts)
