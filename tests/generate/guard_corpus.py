"""A corpus of legitimate art in many styles and of broken decodes, made by code (seeded; scikit-image's bundled
images and drawing only, no downloads), for the pixel guards to be judged against.

Every image is an HxWx3 uint8 array at the resolution the guards see (a piece's generation size).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import skimage.data
import skimage.draw
from PIL import Image

SIDE = 256


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _rgb(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    return np.ascontiguousarray(image[..., :3]).astype(np.uint8)


def _resized(image: np.ndarray, side: int = SIDE) -> np.ndarray:
    return np.array(Image.fromarray(_rgb(image)).resize((side, side), Image.Resampling.LANCZOS))


def _canvas(colour: tuple[int, int, int], side: int = SIDE) -> np.ndarray:
    return np.broadcast_to(np.array(colour, np.uint8), (side, side, 3)).copy()


def _supersampled(draw: Callable[[np.ndarray, int], None], background: tuple[int, int, int], factor: int = 4) -> np.ndarray:
    """Draw at `factor` x the size and average down: the anti-aliased edges a vector renderer gives."""
    big = _canvas(background, SIDE * factor)
    draw(big, factor)
    return big.reshape(SIDE, factor, SIDE, factor, 3).mean(axis=(1, 3)).round().astype(np.uint8)


def _upscaled(small: np.ndarray) -> np.ndarray:
    factor = SIDE // small.shape[0]
    return small.repeat(factor, axis=0).repeat(factor, axis=1)


# -- legitimate -----------------------------------------------------------------------------------

def photo() -> np.ndarray:
    return _resized(skimage.data.astronaut())


def dim_photo() -> np.ndarray:
    return (_resized(skimage.data.coffee()) * 0.12).round().astype(np.uint8)


def dark_mri() -> np.ndarray:
    """A head phantom with tissue noise, dim, on an exactly-black background (as skull-stripped scans are)."""
    head = _resized((skimage.data.shepp_logan_phantom() * 255).astype(np.uint8))[..., 0].astype(np.float64)
    inside = head > 0
    tissue = np.where(inside, 20 + head * 0.3 + _rng(1).normal(0, 4, head.shape), 0)
    return _rgb(np.clip(tissue, 0, 255).round())


def pixel_sprite() -> np.ndarray:
    """A mirrored 16x16 space-invader sprite in a four-colour palette, upscaled x16 nearest-neighbour."""
    rng = _rng(2)
    palette = np.array([[24, 20, 37], [90, 200, 120], [250, 220, 90], [200, 60, 80]], np.uint8)
    half = rng.choice(4, size=(16, 8), p=[0.45, 0.3, 0.15, 0.1])
    half[:2], half[-2:], half[:, :1] = 0, 0, 0
    return _upscaled(palette[np.concatenate([half, half[:, ::-1]], axis=1)])


def avatar_24() -> np.ndarray:
    """A 24x24 avatar (face, hair, eyes, mouth on a flat ground), upscaled to 240 then padded to 256."""
    small = _canvas((110, 170, 230), 24)
    rr, cc = skimage.draw.disk((13, 12), 8, shape=(24, 24))
    small[rr, cc] = (240, 200, 160)
    small[4:8, 5:19] = (80, 50, 30)
    small[11:13, 8:10] = small[11:13, 14:16] = (20, 20, 20)
    small[17, 9:15] = (170, 60, 60)
    big = small.repeat(10, axis=0).repeat(10, axis=1)
    return np.pad(big, ((8, 8), (8, 8), (0, 0)), mode="edge")


def vector_sticker() -> np.ndarray:
    def draw(img: np.ndarray, f: int) -> None:
        angles = np.linspace(0, 2 * np.pi, 11)[:-1] - np.pi / 2
        radii = np.where(np.arange(10) % 2 == 0, 90, 40) * f
        star = (128 * f + radii * np.sin(angles), 128 * f + radii * np.cos(angles))
        rr, cc = skimage.draw.disk((128 * f, 128 * f), 104 * f, shape=img.shape[:2])
        img[rr, cc] = (255, 255, 255)
        rr, cc = skimage.draw.disk((128 * f, 128 * f), 98 * f, shape=img.shape[:2])
        img[rr, cc] = (40, 120, 220)
        rr, cc = skimage.draw.polygon(*star, shape=img.shape[:2])
        img[rr, cc] = (255, 210, 0)

    return _supersampled(draw, (235, 235, 240))


def red_circle() -> np.ndarray:
    """The issue's example: one flat red disc on a light ground, two colours and nothing else."""
    img = _canvas((242, 240, 235))
    rr, cc = skimage.draw.disk((128, 128), 70, shape=img.shape[:2])
    img[rr, cc] = (220, 30, 40)
    return img


def _line_art(ink: tuple[int, int, int], paper: tuple[int, int, int]) -> np.ndarray:
    img = _canvas(paper)
    rng = _rng(3)
    for _ in range(6):
        r0, c0, r1, c1 = rng.integers(10, SIDE - 10, 4)
        rr, cc, _ = skimage.draw.line_aa(r0, c0, r1, c1)
        img[rr, cc] = ink
    for radius in (30, 55):
        rr, cc = skimage.draw.circle_perimeter(128, 128, radius, shape=img.shape[:2])
        img[rr, cc] = ink
    return img


def line_art_on_white() -> np.ndarray:
    return _line_art((20, 20, 20), (255, 255, 255))


def line_art_on_black() -> np.ndarray:
    return _line_art((235, 235, 235), (0, 0, 0))


def truchet_tiling() -> np.ndarray:
    """Two-tone generative tiling: random quarter-circle Truchet tiles, 32 px, aligned to the 8 px grid."""
    rng = _rng(4)
    tile = 32
    y, x = np.mgrid[0:tile, 0:tile] + 0.5
    arcs = (np.abs(np.hypot(y, x) - tile / 2) < 4) | (np.abs(np.hypot(y - tile, x - tile) - tile / 2) < 4)
    img = _canvas((30, 30, 60))
    for r in range(0, SIDE, tile):
        for c in range(0, SIDE, tile):
            mask = arcs if rng.random() < 0.5 else arcs[:, ::-1]
            img[r:r + tile, c:c + tile][mask] = (250, 180, 40)
    return img


def silhouette_on_gradient() -> np.ndarray:
    horse = _resized((~skimage.data.horse()).astype(np.uint8) * 255)[..., 0] > 127
    t = np.linspace(0, 1, SIDE)[:, None, None]
    sky = (1 - t) * np.array([250, 140, 60]) + t * np.array([90, 30, 110])
    img = np.broadcast_to(sky, (SIDE, SIDE, 3)).round().astype(np.uint8).copy()
    img[horse] = (15, 10, 20)
    return img


def night_sky() -> np.ndarray:
    """Black sky, a few dozen small stars (2-3 px): under 1% of pixels lit, so the 99th percentile is black."""
    img = np.zeros((SIDE, SIDE), np.float64)
    rng = _rng(5)
    y, x = np.mgrid[0:SIDE, 0:SIDE]
    for _ in range(60):
        cy, cx, size = rng.uniform(0, SIDE), rng.uniform(0, SIDE), rng.uniform(0.6, 1.1)
        img += rng.uniform(120, 255) * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * size ** 2))
    return _rgb(np.clip(img, 0, 255).round())


def dithered_photo() -> np.ndarray:
    """1-bit Floyd-Steinberg dither (Pillow's default for mode "1"): every pixel black or white."""
    grey = Image.fromarray(_resized(skimage.data.camera())).convert("L")
    return _rgb(np.asarray(grey.convert("1")).astype(np.uint8) * 255)


def logo_on_flat() -> np.ndarray:
    def draw(img: np.ndarray, f: int) -> None:
        rr, cc = skimage.draw.disk((110 * f, 128 * f), 28 * f, shape=img.shape[:2])
        img[rr, cc] = (255, 255, 255)
        rr, cc = skimage.draw.disk((110 * f, 128 * f), 16 * f, shape=img.shape[:2])
        img[rr, cc] = (10, 90, 60)
        img[150 * f:158 * f, 92 * f:164 * f] = (255, 255, 255)

    return _supersampled(draw, (10, 90, 60))


def posterized_photo() -> np.ndarray:
    """A photo in 16 grey levels: banding is a style (and a property to report), not a broken decode."""
    return (_resized(skimage.data.camera()) // 16 * 16).astype(np.uint8)


def chessboard() -> np.ndarray:
    return _rgb(skimage.data.checkerboard())[:SIDE, :SIDE] if skimage.data.checkerboard().shape[0] >= SIDE \
        else _resized(skimage.data.checkerboard())


LEGIT: dict[str, Callable[[], np.ndarray]] = {
    "photo": photo, "dim photo": dim_photo, "dark MRI-like": dark_mri, "pixel-art sprite x16": pixel_sprite,
    "24x24 avatar x10": avatar_24, "flat vector sticker": vector_sticker, "flat red circle": red_circle,
    "line art on white": line_art_on_white, "line art on black": line_art_on_black,
    "two-tone Truchet tiling": truchet_tiling, "silhouette on gradient": silhouette_on_gradient,
    "night sky with stars": night_sky, "1-bit dithered photo": dithered_photo, "logo on flat ground": logo_on_flat,
    "posterized photo": posterized_photo, "chessboard": chessboard,
}


# -- broken ---------------------------------------------------------------------------------------

def _jitter(colour: tuple[int, int, int], seed: int) -> np.ndarray:
    noise = _rng(seed).integers(-1, 2, (SIDE, SIDE, 3))
    return np.clip(_canvas(colour).astype(np.int16) + noise, 0, 255).astype(np.uint8)


def _speckle(base: int, dot: int, seed: int) -> np.ndarray:
    mask = _rng(seed).random((SIDE, SIDE, 1)) < 0.005
    return np.where(mask, dot, base).repeat(3, axis=2).astype(np.uint8)


def _dead_tiles(colour: tuple[int, int, int], tiles: list[tuple[int, int]], size: int = 32) -> np.ndarray:
    """A photo with whole tiles replaced by one exact colour, as a NaN decode cast to uint8 (or a lost VAE tile)."""
    img = photo()
    for r, c in tiles:
        img[r * size:(r + 1) * size, c * size:(c + 1) * size] = colour
    return img


def thin_border() -> np.ndarray:
    """One flat colour inside, a 3-pixel frame of padding artefacts around it."""
    img = _canvas((40, 130, 140))
    frame = _rng(8).integers(0, 256, (SIDE, SIDE, 3)).astype(np.uint8)
    edge = np.ones((SIDE, SIDE), bool)
    edge[3:-3, 3:-3] = False
    img[edge] = frame[edge]
    return img


BROKEN: dict[str, tuple[Callable[[], np.ndarray], str]] = {
    "black": (lambda: _canvas((0, 0, 0)), "black"),
    "white": (lambda: _canvas((255, 255, 255)), "white"),
    "grey ±1": (lambda: _jitter((117, 117, 117), 9), "flat"),
    "flat colour ±1": (lambda: _jitter((200, 40, 90), 10), "flat"),
    "uniform noise": (lambda: _rng(7).integers(0, 256, (SIDE, SIDE, 3), dtype=np.uint8), "noise"),
    "gaussian noise": (lambda: np.clip(_rng(7).normal(128, 40, (SIDE, SIDE, 3)), 0, 255).astype(np.uint8), "noise"),
    "faint noise on grey": (lambda: np.clip(_rng(11).normal(128, 10, (SIDE, SIDE, 3)), 0, 255).astype(np.uint8),
                            "noise"),
    "black with single-pixel speckle": (lambda: _speckle(0, 200, 7), "black"),
    "white with single-pixel speckle": (lambda: _speckle(255, 40, 12), "white"),
    "NaN-black tiles over a photo": (lambda: _dead_tiles((0, 0, 0), [(1, 2), (4, 5), (6, 1), (3, 3)]), "dead_tiles"),
    "lost grey tiles over a photo": (lambda: _dead_tiles((128, 128, 128), [(0, 0), (0, 1), (5, 6)]), "dead_tiles"),
    "bottom half of a photo NaN-black": (lambda: _dead_tiles((0, 0, 0), [(r, c) for r in range(4, 8)
                                                                        for c in range(8)]), "dead_tiles"),
    "one colour with a thin border": (thin_border, "border"),
}
