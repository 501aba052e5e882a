"""Pillow's Lanczos resize of a greyscale ("L") image, `Image.resize(size, LANCZOS)`, reproduced in numpy to the bit:
the pHash's shrink to 32x32, at half Pillow's CPU time.

Pillow (libImaging/Resample.c: precompute_coeffs, normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc and
..._Vertical_8bpc) resizes in two passes, horizontal first, each skipped where that side keeps its size: every output
pixel's filter weights in double precision, normalised to sum 1, turned into 22-bit fixed point; each output the
integer sum of weight x pixel plus one half, shifted down and clipped to 0..255 (so the horizontal pass rounds before
the vertical one reads it). Here the weights come from the same double arithmetic in Python floats (`math.sin` is
the C library's `sin`, as Pillow's is) and the integer sums are float64 matrix products: every product and partial
sum is an integer below 2^53, so exact in whatever order the product adds them. Pillow's loops took 0.28 ms to
shrink a 256 px image to 32x32 (Lanczos: ~49 taps an output pixel), the products ~0.1 ms.

Pillow 13 takes the vertical pass first for some images taller than wide (seen, for a 32 px output, wherever twice
the width is under the height + 32; earlier Pillows always went horizontal first), and the rounding between the passes makes
the order matter. So an image taller than wide is left to Pillow itself: what is computed here is only ever the
order every Pillow since 10 takes (tests/guards/test_resample.py compares them over shapes of every kind). A BOX
resize (the tile signature's: ~8 taps a pixel each way) costs Pillow no more than a product here, so it stays Pillow's.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from PIL import Image

PRECISION_BITS = 32 - 8 - 2  # Pillow's fixed point for 8-bit images: two bits of headroom for negative lobes
LANCZOS_SUPPORT = 3.0  # as Resample.c defines it
# Output rows a product takes at a time: OpenBLAS runs a product of at most 2^18 multiply-adds on the calling thread;
# a larger one used both cores for the same work (twice the CPU time, measured with time.process_time).
PRODUCT_SIZE = 1 << 18


def _sinc(x: float) -> float:
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def _lanczos(x: float) -> float:
    return _sinc(x) * _sinc(x / 3) if -3.0 <= x < 3.0 else 0.0


@functools.lru_cache(maxsize=16)
def weights(in_size: int, out_size: int) -> np.ndarray:
    """(in_size, out_size) float64: the fixed-point Lanczos weight of each input pixel in each output pixel, as
    Pillow's precompute_coeffs and normalize_coeffs_8bpc compute them (C's int casts truncate toward zero, as int()
    does)."""
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = LANCZOS_SUPPORT * filterscale
    step = 1.0 / filterscale
    matrix = np.zeros((in_size, out_size))
    for out in range(out_size):
        center = (out + 0.5) * scale
        start = max(0, int(center - support + 0.5))
        stop = min(in_size, int(center + support + 0.5))
        taps = [_lanczos((x - center + 0.5) * step) for x in range(start, stop)]
        total = 0.0
        for tap in taps:  # summed in order, as the C loop does (numpy's sum pairs them)
            total += tap
        for x, tap in zip(range(start, stop), taps):
            if total != 0.0:
                tap /= total
            matrix[x, out] = int(tap * (1 << PRECISION_BITS) + (-0.5 if tap < 0 else 0.5))
    matrix.flags.writeable = False
    return matrix


def lanczos_resized(grey: np.ndarray, side: int) -> np.ndarray:
    """`Image.fromarray(grey).resize((side, side), LANCZOS)` as a uint8 array (`grey`: H x W uint8)."""
    height, width = grey.shape
    if height > width:
        return np.asarray(Image.fromarray(grey).resize((side, side), Image.Resampling.LANCZOS))
    pixels = grey
    if width != side:
        pixels = _rounded(_product(pixels, weights(width, side)))
    if height != side:
        pixels = _rounded(_product(weights(height, side).T, pixels))
    return pixels.astype(np.uint8)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float64, a block of a's rows at a time: each block a product of at most PRODUCT_SIZE multiply-adds,
    and a's rows made float only a block at a time (a whole 4096 px greyscale image in float64 is 128 MiB)."""
    out = np.empty((a.shape[0], b.shape[1]))
    rows = max(1, PRODUCT_SIZE // (a.shape[1] * b.shape[1]))
    for first in range(0, a.shape[0], rows):
        np.matmul(a[first:first + rows].astype(np.float64, copy=False), b, out=out[first:first + rows])
    return out


def _rounded(sums: np.ndarray) -> np.ndarray:
    """Pillow's clip8: (sum + half) >> PRECISION_BITS, clipped to 0..255 (an exact power-of-two scaling here)."""
    sums += 1 << (PRECISION_BITS - 1)
    sums *= 1.0 / (1 << PRECISION_BITS)
    return np.clip(np.floor(sums, out=sums), 0, 255, out=sums)
