"""The key a stored image's pixel-guard verdict is recorded under (mintprep.stages.screen judges, the ledger keeps
the verdict): what decides it is the check's version, the perceptual hash's method, the pixel thresholds and the
upscale. Light (no numpy, no PIL), so `status` reads today's verdicts without judging anything."""

from __future__ import annotations

from mintprep.base import content_key
from mintprep.collection import Collection

CHECK_VERSION = "mintprep.screening/v3"  # + tile signatures (#20); older verdicts are recomputed
PHASH_VERSION = "phash-imagehash/v1+tiles32/v3"  # v3: a 32x32 signature, tiles nearest 16 px (12 at 384); a change recomputes them


def settings_key(col: Collection) -> str:
    return content_key({"check": CHECK_VERSION, "hash": PHASH_VERSION, "guards": col.spec.guards.pixel_thresholds(),
                        "upscale": col.spec.generator.upscale})
