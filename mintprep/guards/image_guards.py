"""Guards that decide whether an image is healthy: the pixel checks (their thresholds, the `guards:` section, are in
mintprep.guards.settings).

The tensor guards that run during generation (latents, decoded tensor) live in mintprep.generate.guards and use
the same thresholds, so one `guards:` section governs the pipeline and `mintprep validate` alike.
Every check measures first and then compares, so a verdict always carries the values it was decided on.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from mintprep.guards import pixel_metrics as pm
from mintprep.base import MAX_PIXELS, UserError, check_pixel_count, read_regular_file
from mintprep.guards.settings import GuardSettings


@dataclass(frozen=True)
class Condition:
    """One comparison a guard makes; a guard fires when all its conditions hold."""

    metric: str
    value: float
    below: bool  # True: holds when value < threshold (<= for `inclusive`); False: when value > threshold
    threshold: float
    setting: str
    inclusive: bool = False

    @property
    def holds(self) -> bool:
        if self.below:
            return self.value <= self.threshold if self.inclusive else self.value < self.threshold
        return self.value >= self.threshold if self.inclusive else self.value > self.threshold

    @property
    def margin(self) -> float:
        """How far the value is from the threshold, relative to it; positive on the side where the guard fires."""
        scale = max(abs(self.threshold), 1e-3)
        return (self.threshold - self.value) / scale if self.below else (self.value - self.threshold) / scale

    def describe(self) -> str:
        op = ("<=" if self.inclusive else "<") if self.below else (">=" if self.inclusive else ">")
        if not self.holds:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
        return f"{self.metric} {self.value:g} {op} {self.setting} {self.threshold:g}"


@dataclass(frozen=True)
class GuardCheck:
    name: str
    conditions: tuple[Condition, ...]

    @property
    def fired(self) -> bool:
        return all(c.holds for c in self.conditions)

    @property
    def deciding(self) -> Condition:
        """Fired: the condition nearest to not holding. Passed: the condition furthest from holding, which is what
        kept the guard from firing (all must hold). Either way, the smallest margin."""
        return min(self.conditions, key=lambda c: c.margin)

    def describe(self) -> str:
        return f"{self.name}: " + " and ".join(c.describe() for c in self.conditions)


@dataclass(frozen=True)
class PixelVerdict:
    """The pixel guards' decision: `guard` is the first guard that fired, `reasons` all that did; `decided_by`
    names the metric, its value and threshold that decided (for a pass, the guard that came nearest to firing);
    `properties` are facts worth reporting that reject nothing (posterized, banded), and `warnings` the metric and
    threshold behind each."""

    ok: bool
    guard: str | None
    reasons: tuple[str, ...]
    metrics: dict[str, float] = field(default_factory=dict)
    decided_by: dict[str, Any] = field(default_factory=dict)
    properties: tuple[str, ...] = ()
    warnings: tuple[dict[str, Any], ...] = ()


def pixel_metrics(rgb: np.ndarray, guards: GuardSettings) -> dict[str, float]:
    """Measurements the pixel guards decide on, for an HxWx3 uint8 image (some depend on levels in `guards`)."""
    luma = pm.luma_of(rgb)
    histogram = pm.luma_histogram(luma)
    p1, p99 = pm.percentile_level(histogram, 1), pm.percentile_level(histogram, 99)
    inset = pm.border_width(rgb.shape, guards.border_share)
    if min(rgb.shape[:2]) <= 2 * inset + 1:
        inset = 0
    maps = pm.edge_maps(rgb)
    dark_run, dark_cut = pm.dark_run(luma, guards.black_level)
    luma_std, interior_luma_std = pm.luma_std(luma), pm.luma_std(luma, inset)
    channel_stds, interior_channel_stds = pm.channel_stds(rgb, inset)
    return {
        "luma_p1": p1,
        "luma_p99": p99,
        "luma_std": round(luma_std, 3),
        "spread": round(max(luma_std, *channel_stds), 3),
        "edge_share": round(pm.edge_share(maps, guards.edge_step), 5),
        "lit_feature_share": round(pm.feature_share(luma > guards.black_level), 5),
        "dark_feature_share": round(pm.feature_share(luma < guards.white_level), 5),
        "interior_spread": round(max(interior_luma_std, *interior_channel_stds), 3),
        "interior_edge_share": round(pm.edge_share(maps, guards.edge_step, inset), 5),
        "dead_tile_share": round(pm.dead_tile_share(rgb, luma, maps), 4),
        "neighbour_corr": round(pm.neighbour_corr(luma), 4),
        "coarse_corr": round(pm.coarse_corr(luma), 4),
        "hf_ratio": round(pm.hf_ratio(luma), 4),
        "levels": float(np.count_nonzero(histogram)),
        "empty_level_share": round(pm.empty_level_share(histogram, p1, p99), 4),
        "dark_run_share": round(dark_run, 4),
        "dark_cut": round(dark_cut, 2),
        "banded_share": round(pm.banded_share(rgb), 4),
    }


def guard_checks(m: dict[str, float], g: GuardSettings) -> list[GuardCheck]:
    """Every pixel guard as the conditions it fires on, in the order they are reported."""
    def c(metric: str, below: bool, setting: str, inclusive: bool = False) -> Condition:
        return Condition(metric, m[metric], below, float(getattr(g, setting)), setting, inclusive)

    return [
        GuardCheck("black", (c("luma_p99", True, "black_level", True), c("lit_feature_share", True,
                                                                          "min_feature_share"))),
        GuardCheck("white", (c("luma_p1", False, "white_level", True), c("dark_feature_share", True,
                                                                          "min_feature_share"))),
        GuardCheck("flat", (c("spread", True, "min_std"), c("edge_share", True, "min_edge_share"))),
        GuardCheck("border", (c("interior_spread", True, "min_std"), c("interior_edge_share", True,
                                                                       "min_edge_share"))),
        GuardCheck("dead_tiles", (c("dead_tile_share", False, "max_dead_tile_share"),)),
        GuardCheck("half_black", (c("dark_run_share", False, "max_dark_run_share"), c("dark_cut", False,
                                                                                      "min_dark_cut", True))),
        GuardCheck("noise", (c("neighbour_corr", True, "min_neighbour_corr"), c("coarse_corr", True,
                                                                                "min_coarse_corr"))),
        GuardCheck("noise", (c("hf_ratio", False, "max_hf_ratio"), c("coarse_corr", True, "min_coarse_corr"))),
    ]


# Facts reported, never rejected: (property, metric, setting), each fires when the metric is above the setting.
WARNINGS = (("posterized", "empty_level_share", "max_empty_level_share"),
            ("banded", "banded_share", "max_banded_share"))


def pixel_warnings(m: dict[str, float], guards: GuardSettings) -> tuple[dict[str, Any], ...]:
    """The properties the metrics `m` show (each: its metric, value, setting and threshold)."""
    return tuple({"property": name, "metric": metric, "value": m[metric], "setting": setting,
                  "threshold": float(getattr(guards, setting))}
                 for name, metric, setting in WARNINGS if m[metric] > getattr(guards, setting))


def check_pixels(rgb: np.ndarray, guards: GuardSettings) -> PixelVerdict:
    if rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 uint8 image, got {rgb.dtype} {rgb.shape}")
    m = pixel_metrics(rgb, guards)
    checks = guard_checks(m, guards)
    fired = [check for check in checks if check.fired]
    # A flat image is also "border"-flat: report what a viewer would call it, once.
    if any(check.name == "flat" for check in fired):
        fired = [check for check in fired if check.name != "border"]
    deciding_check = fired[0] if fired else max(checks, key=lambda check: check.deciding.margin)
    condition = deciding_check.deciding
    decided_by = {"guard": deciding_check.name, "metric": condition.metric, "value": condition.value,
                  "setting": condition.setting, "threshold": condition.threshold, "margin": round(condition.margin, 4)}
    warnings = pixel_warnings(m, guards)
    properties = tuple(w["property"] for w in warnings)
    reasons, seen = [], set()
    for check in fired:
        if check.name not in seen:
            seen.add(check.name)
            reasons.append(check.describe())
    return PixelVerdict(ok=not fired, guard=fired[0].name if fired else None, reasons=tuple(reasons), metrics=m,
                        decided_by=decided_by, properties=properties, warnings=warnings)


def describe_decision(verdict: PixelVerdict) -> str:
    """One line naming the metric that decided: `decided by noise: coarse_corr 0.56 (min_coarse_corr 0.5, ...)`."""
    d = verdict.decided_by
    side = "fired" if not verdict.ok else "nearest guard"
    text = (f"{side} {d['guard']}: {d['metric']} {d['value']:g} vs {d['setting']} {d['threshold']:g} "
            f"(margin {d['margin']:+.0%})")
    return text + "".join(f"; {w['property']} ({w['metric']} {w['value']:g} > {w['setting']} {w['threshold']:g})"
                          for w in verdict.warnings)


def thumbnail_png(rgb: np.ndarray, side: int = 128) -> bytes:
    """A PNG of `rgb` at most `side` pixels across (pixel art stays sharp: nearest-neighbour when shrinking by an
    integer factor), for review sheets."""
    image = Image.fromarray(rgb)
    factor = max(1, -(-max(image.size) // side))
    if factor > 1:
        image = image.resize((max(1, image.width // factor), max(1, image.height // factor)),
                             Image.Resampling.NEAREST if max(image.size) % factor == 0 else Image.Resampling.LANCZOS)
    out = io.BytesIO()
    # zlib level 1: 1 ms a 128 px thumbnail against 27 ms with optimize=True (which tries every filter and level)
    # and 5 ms at the default level, for PNGs about a fifth larger than optimize's (bench/bench_review.py).
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def validate_png(data: bytes, guards: GuardSettings, *, upscale: int = 1, source: str = "image") -> PixelVerdict:
    """The pixel guards on encoded image bytes; `upscale` undoes mintprep's nearest-neighbour upscale first,
    so a stored image is judged at the resolution it was generated (and guarded) at."""
    return check_pixels(load_rgb(data, source, max_pixels=MAX_PIXELS * upscale * upscale)[::upscale, ::upscale],
                        guards)


def validate_file(path: Path, guards: GuardSettings, *, upscale: int = 1) -> PixelVerdict:
    return validate_png(read_regular_file(path), guards, upscale=upscale, source=str(path))


def flattened_rgb(image: Image.Image) -> np.ndarray:
    """The decoded pixels as HxWx3 uint8, alpha flattened onto black: a transparent image shows as whatever is
    behind it, so judge the worst (convert("RGB") alone would drop the alpha and judge the colours hidden under it)."""
    if "A" not in image.getbands() and "transparency" not in image.info:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
    rgba = np.asarray(image.convert("RGBA"), dtype=np.float64)
    return np.rint(rgba[..., :3] * (rgba[..., 3:] / 255.0)).astype(np.uint8)


def load_rgb(data: bytes, source: str = "image", *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    try:
        with Image.open(io.BytesIO(data)) as image:
            check_pixel_count(image, source, max_pixels)
            return flattened_rgb(image)
    except Image.DecompressionBombError as exc:
        raise UserError(f"{source}: refused as a decompression bomb ({exc})") from None
    except UnidentifiedImageError:
        raise UserError(f"{source}: not an image format Pillow can read ({len(data)} bytes)") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{source}: not a readable image ({exc})") from None
