"""The `guards:` section of collection.yaml: the thresholds every guard compares with (the checks themselves are in
mintprep.guards.image_guards and mintprep.generate.guards; this module imports neither numpy nor PIL, so reading a
collection file stays quick)."""

from __future__ import annotations

from pydantic import Field, model_validator

from mintprep.base import StrictModel

# Thresholds that judge the tensors during sampling and decoding: only generation can apply them, so they are part
# of a piece's generation key. Every other threshold judges stored pixels and is re-applied by the validate stage
# (changing it re-validates stored images; only those that now fail are resampled).
TENSOR_GUARD_FIELDS = ("latent_std_min", "latent_std_max", "decoded_abs_max")


class GuardSettings(StrictModel):
    # Latents, in the scaled space the sampler works in (real SD latents have std ~1 by construction).
    latent_std_min: float = Field(0.3, ge=0.0, description="final latents below this std: collapsed (flat output)")
    latent_std_max: float = Field(3.0, gt=0.0, description="final latents above this std: diverged / burnt CFG")
    # Decoded tensor, nominally in [-1, 1] before it becomes pixels.
    decoded_abs_max: float = Field(
        4.0, gt=1.0, description="reject a decode with any |value| above this: the VAE blew up (clipping would hide it)"
    )
    # uint8 pixels (after the decode, before any upscale).
    black_level: float = Field(
        8.0, ge=0.0, le=255.0, description="black: 99th percentile of luma at or below this (and no features); "
        "8 is below the darkest shadow a display shows as not-black")
    white_level: float = Field(
        247.0, ge=0.0, le=255.0, description="white: 1st percentile of luma at or above this (and no features)")
    min_feature_share: float = Field(
        0.001, ge=0.0, le=1.0, description="black/white: an almost-black (-white) image still passes when this share "
        "of its pixels are lit (dark) with a lit (dark) 4-neighbour: stars and thin lines are features, the "
        "isolated single-pixel speckle a NaN decode leaves is not")
    min_std: float = Field(
        3.0, ge=0.0, description="flat: largest of the R, G, B and luma standard deviations below this (3 levels: "
        "above the ±1 jitter of a collapsed decode)")
    edge_step: float = Field(
        6.0, ge=0.0, le=255.0, description="an edge: adjacent pixels differing by more than this in some channel "
        "(twice the ±2 rounding and dither noise of a flat decode)")
    min_edge_share: float = Field(
        0.001, ge=0.0, le=1.0, description="flat: below this share of edges as well as below min_std; a small logo "
        "or one thin line on a flat ground has more")
    border_share: float = Field(
        1 / 16, gt=0.0, lt=0.5, description="border: width of the frame (share of the short side) that may be all "
        "that varies; an image flat inside it is a collapsed decode with padding artefacts, not a picture")
    max_dead_tile_share: float = Field(
        0.01, ge=0.0, le=1.0, description="dead tiles: share of the image in exactly-constant 8x8 tiles with hard "
        "edges against texture above this (NaN-black tiles over a photo); flat fills of real art have soft or "
        "untextured borders and do not count")
    min_neighbour_corr: float = Field(
        0.5, ge=-1.0, le=1.0, description="noise: correlation of horizontally/vertically adjacent pixels below this"
    )
    max_hf_ratio: float = Field(
        0.3, gt=0.0, le=1.0, description="noise: share of spectral energy above half the Nyquist frequency"
    )
    min_coarse_corr: float = Field(
        0.5, ge=-1.0, le=1.0, description="noise: only when the 4x4 block means are uncorrelated too (below this): "
        "a dithered photo, line art or pixel texture is noisy per pixel but a picture at a coarser scale")
    max_empty_level_share: float = Field(
        0.5, gt=0.0, le=1.0, description="posterized (reported, never a rejection): share of unused luma levels "
        "between the 1st and 99th percentile above this; palettes and pixel art are posterized on purpose",
    )
    max_dark_run_share: float = Field(
        0.25, gt=0.0, le=1.0, description="half-black: a decode that failed midway leaves a black band below a "
        "straight cut; rejected when the unbroken run of dark rows (under 1% of a row above black_level) ending at "
        "the bottom edge is above this share of the height and the cut is hard (min_dark_cut). Dark ground in art "
        "ends along a shape: line art on black reaches 0.16 with a 4-level step")
    min_dark_cut: float = Field(
        24.0, ge=0.0, le=255.0, description="half-black: mean luma step across the cut between the last lit row and "
        "the dark run, at or above this (a broken decode: ~100; dark ground in art: under 5)")
    max_banded_share: float = Field(
        0.1, ge=0.0, le=1.0, description="banded (a warning, never a rejection): share of pixels on staircases "
        "in some channel (stretches without edges whose level changes are all 2-8 levels one way, flat between) above "
        "this: a smooth gradient quantized too coarsely, as an fp16 VAE decode bands a sky. Real gradients change "
        "0-1 levels a pixel; art and photos in the guard corpus stay under 0.01")
    duplicate_distance: int = Field(
        6, ge=0, le=15, description="near-duplicate: a piece whose 64-bit perceptual hash is within this Hamming "
        "distance of an earlier token's is rejected and resampled (imagehash's docs suggest <= ~10 as similar; "
        "different seeds of one prompt sit well above 6, a re-encode or small edit below); such a pair is a "
        "candidate, a duplicate only when its tiles agree too (duplicate_tile_diff)")
    duplicate_tile_diff: float = Field(
        6.0, ge=0.0, le=255.0, description="near-duplicate: a candidate pair is a duplicate when no tile (about 16x16 "
        "pixels: a 4x4 grid at 64 px, 16x16 from 256 px) differs by more than this mean luma (0-255, on a 16x16 "
        "box-averaged copy): re-encodings, 1-pixel resizes, +2% brightness and a few changed pixels stay at or below "
        "~5; another hat or eyes layer on the same base changes its tiles by 7 or more (docs/duplicates.md)")
    max_resamples: int = Field(
        3, ge=0, le=100, description="a piece rejected after generation (duplicate, or a stored image that fails "
        "changed guards) is resampled while its next attempt is below max_attempts x (1 + this)")

    @model_validator(mode="after")
    def _ordered(self) -> "GuardSettings":
        if self.latent_std_min >= self.latent_std_max:
            raise ValueError("latent_std_min must be below latent_std_max")
        if self.black_level >= self.white_level:
            raise ValueError("black_level must be below white_level")
        return self

    def tensor_thresholds(self) -> dict[str, float]:
        return self.model_dump(mode="json", include=set(TENSOR_GUARD_FIELDS))

    def pixel_thresholds(self) -> dict[str, float]:
        return self.model_dump(mode="json", exclude=set(TENSOR_GUARD_FIELDS) | {"duplicate_distance",
                                                                                  "duplicate_tile_diff",
                                                                                  "max_resamples"})
