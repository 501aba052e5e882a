"""Guards that decide whether an image is healthy: their thresholds (the `guards:` section) and the pixel checks.

The tensor guards that run during generation (latents, decoded tensor) live in mintprep.generate.guards and use
the thresholds defined here too, so one `guards:` section governs the pipeline and `mintprep validate` alike.
Every check measures first and then compares, so a verdict always carries the values it was decided on.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError
from pydantic import Field, model_validator

from mintprep.errors import UserError
from mintprep.untrusted import MAX_PIXELS, check_pixel_count, read_regular_file
from mintprep.model import StrictModel

# ITU-R BT.601 luma weights: what "dark" and "flat" mean to a viewer, not per channel.
LUMA_WEIGHTS = np.array([0.299, 0.587, 0.114])


class GuardSettings(StrictModel):
    # Latents, in the scaled space the sampler works in (real SD latents have std ~1 by construction).
    latent_std_min: float = Field(0.3, ge=0.0, description="final latents below this std: collapsed (flat output)")
    latent_std_max: float = Field(3.0, gt=0.0, description="final latents above this std: diverged / burnt CFG")
    # Decoded tensor, nominally in [-1, 1] before it becomes pixels.
    decoded_abs_max: float = Field(
        4.0, gt=1.0, description="reject a decode with any |value| above this: the VAE blew up (clipping would hide it)"
    )
    # uint8 pixels (after the decode, before any upscale).
    black_level: float = Field(8.0, ge=0.0, le=255.0, description="black: 99th percentile of luma at or below this")
    white_level: float = Field(247.0, ge=0.0, le=255.0, description="white: 1st percentile of luma at or above this")
    min_std: float = Field(3.0, ge=0.0, description="flat: luma standard deviation below this")
    min_levels: int = Field(16, ge=1, le=256, description="flat: fewer distinct luma levels than this")
    min_neighbour_corr: float = Field(
        0.5, ge=-1.0, le=1.0, description="noise: correlation of horizontally/vertically adjacent pixels below this"
    )
    max_hf_ratio: float = Field(
        0.3, gt=0.0, le=1.0, description="noise: share of spectral energy above half the Nyquist frequency"
    )
    max_empty_level_share: float = Field(
        0.5, gt=0.0, le=1.0,
        description="posterized: share of unused luma levels between the 1st and 99th percentile above this",
    )

    @model_validator(mode="after")
    def _ordered(self) -> "GuardSettings":
        if self.latent_std_min >= self.latent_std_max:
            raise ValueError("latent_std_min must be below latent_std_max")
        if self.black_level >= self.white_level:
            raise ValueError("black_level must be below white_level")
        return self


@dataclass(frozen=True)
class PixelVerdict:
    """The pixel guards' decision: `guard` is the first (cheapest) guard that fired, `reasons` all that did."""

    ok: bool
    guard: str | None
    reasons: tuple[str, ...]
    metrics: dict[str, float] = field(default_factory=dict)


def pixel_metrics(rgb: np.ndarray) -> dict[str, float]:
    """Measurements the pixel guards decide on, for an HxWx3 uint8 image."""
    luma = rgb.astype(np.float64) @ LUMA_WEIGHTS
    levels = np.rint(luma).astype(np.int64)
    p1, p99 = np.percentile(luma, [1, 99])
    std = float(luma.std())
    return {
        "luma_p1": round(float(p1), 3),
        "luma_p99": round(float(p99), 3),
        "luma_std": round(std, 3),
        "levels": float(len(np.unique(levels))),
        "neighbour_corr": round(_neighbour_corr(luma), 4),
        "hf_ratio": round(_hf_ratio(luma), 4),
        "empty_level_share": round(_empty_level_share(levels, int(np.rint(p1)), int(np.rint(p99))), 4),
    }


def check_pixels(rgb: np.ndarray, guards: GuardSettings) -> PixelVerdict:
    if rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 uint8 image, got {rgb.dtype} {rgb.shape}")
    m = pixel_metrics(rgb)
    fired = []
    if m["luma_p99"] <= guards.black_level:
        fired.append(("black", f"99% of pixels at luma <= {m['luma_p99']:g} (black_level {guards.black_level:g})"))
    if m["luma_p1"] >= guards.white_level:
        fired.append(("white", f"99% of pixels at luma >= {m['luma_p1']:g} (white_level {guards.white_level:g})"))
    if m["luma_std"] < guards.min_std or m["levels"] < guards.min_levels:
        fired.append(("flat", f"luma std {m['luma_std']:g} (min_std {guards.min_std:g}), {m['levels']:g} levels "
                              f"(min_levels {guards.min_levels})"))
    if m["neighbour_corr"] < guards.min_neighbour_corr or m["hf_ratio"] > guards.max_hf_ratio:
        fired.append(("noise", f"neighbour correlation {m['neighbour_corr']:g} (min {guards.min_neighbour_corr:g}), "
                               f"high-frequency energy {m['hf_ratio']:g} (max {guards.max_hf_ratio:g})"))
    if m["empty_level_share"] > guards.max_empty_level_share:
        fired.append(("posterized", f"{m['empty_level_share']:.0%} of luma levels between the 1st and 99th "
                                    f"percentile unused (max {guards.max_empty_level_share:.0%})"))
    return PixelVerdict(ok=not fired, guard=fired[0][0] if fired else None,
                        reasons=tuple(f"{name}: {why}" for name, why in fired), metrics=m)


def validate_png(data: bytes, guards: GuardSettings, *, upscale: int = 1, source: str = "image") -> PixelVerdict:
    """The pixel guards on encoded image bytes; `upscale` undoes mintprep's nearest-neighbour upscale first,
    so a stored image is judged at the resolution it was generated (and guarded) at."""
    return check_pixels(load_rgb(data, source, max_pixels=MAX_PIXELS * upscale * upscale)[::upscale, ::upscale],
                        guards)


def validate_file(path: Path, guards: GuardSettings, *, upscale: int = 1) -> PixelVerdict:
    return validate_png(read_regular_file(path), guards, upscale=upscale, source=str(path))


def load_rgb(data: bytes, source: str = "image", *, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    try:
        with Image.open(io.BytesIO(data)) as image:
            check_pixel_count(image, source, max_pixels)
            # Alpha is flattened onto black: a transparent image shows as whatever is behind it, so judge the worst.
            # (convert("RGB") alone would drop the alpha and judge the colours hidden under it.)
            if "A" not in image.getbands() and "transparency" not in image.info:
                return np.asarray(image.convert("RGB"), dtype=np.uint8)
            rgba = np.asarray(image.convert("RGBA"), dtype=np.float64)
            return np.rint(rgba[..., :3] * (rgba[..., 3:] / 255.0)).astype(np.uint8)
    except Image.DecompressionBombError as exc:
        raise UserError(f"{source}: refused as a decompression bomb ({exc})") from None
    except UnidentifiedImageError:
        raise UserError(f"{source}: not an image format Pillow can read ({len(data)} bytes)") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{source}: not a readable image ({exc})") from None


def _neighbour_corr(luma: np.ndarray) -> float:
    """Mean lag-1 correlation along rows and columns: ~0 for pixel noise, > 0.9 for photographs.
    Defined as 1 for a constant image (no variation is the opposite of noise; the flat guard catches it)."""
    pairs = [(luma[:, :-1], luma[:, 1:]), (luma[:-1, :], luma[1:, :])]
    values = []
    for a, b in pairs:
        a, b = a - a.mean(), b - b.mean()
        denominator = np.sqrt((a * a).sum() * (b * b).sum())
        values.append(float((a * b).sum() / denominator) if denominator > 0 else 1.0)
    return float(np.mean(values))


def _hf_ratio(luma: np.ndarray) -> float:
    """Share of the (mean-removed) spectral energy beyond half the Nyquist frequency: ~0.8 for white noise."""
    spectrum = np.abs(np.fft.fft2(luma - luma.mean())) ** 2
    total = spectrum.sum()
    if total <= 0:
        return 0.0
    fy = np.fft.fftfreq(luma.shape[0])[:, None]
    fx = np.fft.fftfreq(luma.shape[1])[None, :]
    high = np.hypot(fx, fy) > 0.25  # frequencies in cycles/pixel; Nyquist is 0.5
    return float(spectrum[high].sum() / total)


def _empty_level_share(levels: np.ndarray, low: int, high: int) -> float:
    """Share of integer luma levels in [low, high] that no pixel uses: banding leaves regular gaps."""
    if high <= low:
        return 0.0
    counts = np.bincount(levels.ravel() - levels.min(), minlength=256)[low - levels.min(): high - levels.min() + 1]
    return float((counts == 0).mean())
