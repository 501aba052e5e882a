"""A layered PFP collection as HashLips or thirdweb make them, drawn with PIL (deterministic, no model): a
background, a figure, a hat and eyes, each layer a pure function of its trait value, composited in that order.

Planted on top of the distinct avatars, each kind of pair the near-duplicate rule must tell apart:
- re-encodings of one token under another id (duplicates): a JPEG round trip, a 1-pixel resize, +2% brightness,
  a few changed pixels;
- layer variants (distinct by design): the same background and figure under another hat, or other eyes.

`export_folder` writes it as a HashLips export (`<id>.json` + `images/<id>.png`) for `mintprep import --from`.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance

SIDE = 64
BACKGROUNDS = {"dawn": ((250, 190, 120), (120, 80, 160)), "sea": ((40, 120, 200), (10, 40, 90)),
               "moss": ((90, 150, 70), (30, 60, 30)), "sand": ((230, 210, 160), (170, 130, 80)),
               "dusk": ((200, 90, 120), (40, 20, 60)), "fog": ((200, 205, 210), (120, 125, 140))}
FIGURES = {"ape": (140, 100, 60), "robot": (150, 160, 175), "alien": (110, 200, 120), "ghost": (235, 235, 245)}
HATS = ["none", "cap", "top hat", "crown", "beanie"]
EYES = ["dots", "visor", "wide", "sleepy"]
REENCODINGS = ("jpeg", "resize-1px", "brightness+2%", "pixels")


def background(name: str) -> Image.Image:
    """A vertical gradient with a fine fixed grain (the same for every token with this background)."""
    top, bottom = (np.array(c, float) for c in BACKGROUNDS[name])
    t = np.linspace(0, 1, SIDE)[:, None, None]
    rgb = np.broadcast_to(top * (1 - t) + bottom * t, (SIDE, SIDE, 3)).copy()
    rgb += np.random.default_rng(sum(map(ord, name))).normal(0, 3, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))


def draw_figure(image: Image.Image, name: str) -> None:
    skin = FIGURES[name]
    d = ImageDraw.Draw(image)
    d.ellipse((14, 40, 50, 70), fill=tuple(int(c * 0.8) for c in skin), outline=(20, 20, 20))  # shoulders
    d.ellipse((18, 16, 46, 46), fill=skin, outline=(20, 20, 20))  # head
    d.arc((26, 32, 38, 40), 20, 160, fill=(40, 20, 20), width=1)  # mouth


def draw_hat(image: Image.Image, name: str) -> None:
    d = ImageDraw.Draw(image)
    if name == "cap":
        d.chord((16, 8, 48, 30), 180, 360, fill=(200, 30, 40), outline=(20, 20, 20))
        d.rectangle((30, 18, 56, 21), fill=(160, 20, 30))
    elif name == "top hat":
        d.rectangle((22, 0, 42, 18), fill=(25, 25, 30))
        d.rectangle((14, 17, 50, 21), fill=(25, 25, 30))
        d.rectangle((22, 12, 42, 15), fill=(160, 30, 40))
    elif name == "crown":
        d.polygon([(18, 20), (18, 6), (25, 13), (32, 3), (39, 13), (46, 6), (46, 20)], fill=(235, 190, 40),
                  outline=(120, 80, 10))
    elif name == "beanie":
        d.chord((16, 4, 48, 34), 180, 360, fill=(40, 90, 200), outline=(20, 20, 20))
        d.ellipse((29, 0, 35, 6), fill=(230, 230, 230))


def draw_eyes(image: Image.Image, name: str) -> None:
    d = ImageDraw.Draw(image)
    if name == "dots":
        d.ellipse((24, 25, 28, 29), fill=(10, 10, 10))
        d.ellipse((36, 25, 40, 29), fill=(10, 10, 10))
    elif name == "visor":
        d.rectangle((20, 23, 44, 30), fill=(230, 40, 60), outline=(20, 20, 20))
    elif name == "wide":
        for x in (22, 34):
            d.ellipse((x, 21, x + 8, 31), fill=(250, 250, 250), outline=(20, 20, 20))
            d.ellipse((x + 3, 24, x + 6, 28), fill=(10, 10, 10))
    elif name == "sleepy":
        d.line((22, 27, 30, 27), fill=(10, 10, 10), width=2)
        d.line((34, 27, 42, 27), fill=(10, 10, 10), width=2)


Traits = dict[str, str]


def avatar(traits: Traits) -> np.ndarray:
    image = background(traits["background"])
    draw_figure(image, traits["figure"])
    draw_eyes(image, traits["eyes"])
    draw_hat(image, traits["hat"])
    return np.asarray(image.convert("RGB"))


def reencode(rgb: np.ndarray, kind: str) -> np.ndarray:
    """The same picture as another tool or a careless re-export would write it."""
    image = Image.fromarray(rgb)
    if kind == "jpeg":
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=92)
        return np.asarray(Image.open(out).convert("RGB"))
    if kind == "resize-1px":
        return np.asarray(image.resize((SIDE - 1, SIDE - 1), Image.Resampling.BICUBIC)
                          .resize((SIDE, SIDE), Image.Resampling.BICUBIC))
    if kind == "brightness+2%":
        return np.asarray(ImageEnhance.Brightness(image).enhance(1.02))
    if kind == "pixels":
        changed = rgb.copy()
        rng = np.random.default_rng(7)
        for y, x in rng.integers(0, SIDE, (6, 2)):
            changed[y, x] = 255 - changed[y, x]
        return changed
    raise ValueError(kind)


@dataclass
class LayeredCollection:
    traits: dict[int, Traits]
    images: dict[int, np.ndarray]
    duplicates: dict[int, tuple[int, str]] = field(default_factory=dict)  # planted copy -> (original, kind)
    variants: dict[int, tuple[int, str]] = field(default_factory=dict)  # layer variant -> (base token, layer)


def _distinct_traits(count: int, rng: np.random.Generator) -> list[Traits]:
    """`count` trait sets, no two sharing both background and figure (so only the planted variants share a base)."""
    bases = [(b, f) for b in BACKGROUNDS for f in FIGURES]
    order = rng.permutation(len(bases))[:count]
    return [{"background": bases[i][0], "figure": bases[i][1], "hat": HATS[int(rng.integers(len(HATS)))],
             "eyes": EYES[int(rng.integers(len(EYES)))]} for i in order]


def layered_collection(distinct: int = 14, seed: int = 5) -> LayeredCollection:
    """`distinct` avatars (ids 1..distinct), then one planted re-encoding per kind of a distinct avatar, then layer
    variants: two other hats and one other pair of eyes on each of two bases. Ids run 1..size with no gap."""
    rng = np.random.default_rng(seed)
    traits = dict(enumerate(_distinct_traits(distinct, rng), start=1))
    images = {t: avatar(v) for t, v in traits.items()}
    col = LayeredCollection(traits, images)
    next_id = distinct + 1
    for offset, kind in enumerate(REENCODINGS):
        original = 2 + 3 * offset
        traits[next_id], images[next_id] = dict(traits[original]), reencode(images[original], kind)
        col.duplicates[next_id] = (original, kind)
        next_id += 1
    for base in (1, 4):
        hats = [h for h in HATS if h != traits[base]["hat"]][:2]
        eyes = [e for e in EYES if e != traits[base]["eyes"]][:1]
        for layer, value in [*(("hat", h) for h in hats), *(("eyes", e) for e in eyes)]:
            traits[next_id] = {**traits[base], layer: value}
            images[next_id] = avatar(traits[next_id])
            col.variants[next_id] = (base, layer)
            next_id += 1
    return col


def png_bytes(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG")
    return out.getvalue()


def document(token_id: int, traits: Traits) -> dict:
    """HashLips' metadata shape."""
    return {"name": f"Layered #{token_id}", "description": "Avatars from layers.", "image": f"images/{token_id}.png",
            "edition": token_id, "attributes": [{"trait_type": k, "value": v} for k, v in traits.items()],
            "compiler": "HashLips Art Engine"}


def export_folder(folder: Path, traits: dict[int, Traits], images: dict[int, np.ndarray]) -> Path:
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for token_id, rgb in images.items():
        (folder / "images" / f"{token_id}.png").write_bytes(png_bytes(rgb))
        (folder / f"{token_id}.json").write_text(json.dumps(document(token_id, traits[token_id]), indent=2))
    return folder
