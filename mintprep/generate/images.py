"""From the decoded tensor to PNG bytes: uint8 conversion, nearest-neighbour upscale, deterministic encoding."""

from __future__ import annotations

import io

import numpy as np
import torch
from PIL import Image


def to_uint8(image: torch.Tensor) -> np.ndarray:
    """One decoded image [3,H,W] (or [1,3,H,W]) in [-1, 1], finite, to HxWx3 uint8, rounding like diffusers."""
    if image.ndim == 4:
        (image,) = image
    pixels = ((image.float() / 2 + 0.5).clamp(0, 1) * 255).round().to(torch.uint8)
    return pixels.permute(1, 2, 0).cpu().numpy()


def upscale_nearest(rgb: np.ndarray, factor: int) -> np.ndarray:
    if factor == 1:
        return rgb
    return np.repeat(np.repeat(rgb, factor, axis=0), factor, axis=1)


def encode_png(rgb: np.ndarray) -> bytes:
    """8-bit RGB PNG with no ancillary chunks (no time, text, gamma): the same pixels give the same bytes for a
    given Pillow/zlib build, so a re-generation can be compared by sha256. Never palette mode: it would band."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
