"""Real-size layered art for the benches: HashLips-style avatars 256-512 px across, 30-60 KB a PNG.

Each piece is a background (a two-colour gradient with a fixed grain of its own), a figure, a hat, eyes and a
pattern layer, drawn with Pillow from the piece's traits, composited in that order, then a light per-piece grain
over the whole image (as exported art carries from its source layers). About one piece in a hundred is a planted
near-copy of an earlier one (a JPEG round trip or +2% brightness: what the near-duplicate rule must catch).

    from tests.support.real_art import art_png, write_folder
    write_folder(Path("art"), 1000)   # art/images/<n>.png + art/<n>.json (a HashLips export)

Deterministic: the same (token id, side) gives the same bytes.
"""

from __future__ import annotations

import io
import math
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance

BACKGROUNDS = [((250, 190, 120), (120, 80, 160)), ((40, 120, 200), (10, 40, 90)), ((90, 150, 70), (30, 60, 30)),
               ((230, 210, 160), (170, 130, 80)), ((200, 90, 120), (40, 20, 60)), ((200, 205, 210), (120, 125, 140)),
               ((60, 60, 70), (20, 20, 30)), ((250, 240, 200), (200, 160, 100))]
# Skins of distinct luma: the near-duplicate check reads luma only, so two skins of one luma would make a pair.
SKINS = [(140, 100, 60), (120, 130, 150), (110, 200, 120), (235, 235, 245), (220, 180, 150), (90, 70, 50)]
HATS = ["none", "cap", "top hat", "crown", "beanie", "band"]
EYES = ["dots", "visor", "wide", "sleepy", "laser"]
PATTERNS = ["none", "stripes", "spots", "rings"]
COPY_EVERY = 100  # every 100th token (from 50 on) is a near-copy of the token 37 before it
SIDE = 384


ACCESSORIES = ["none", "earring", "necklace", "bowtie"]
LAYERS = (("background", len(BACKGROUNDS)), ("skin", len(SKINS)), ("hat", len(HATS)), ("eyes", len(EYES)),
          ("pattern", len(PATTERNS)), ("accessory", len(ACCESSORIES)))
COMBINATIONS = math.prod(count for _, count in LAYERS)  # 23,040
STEP = 7919  # a prime not dividing COMBINATIONS: token -> combination is one-to-one below it


def traits(token_id: int) -> dict[str, int]:
    """Each token its own combination of layers (as HashLips keeps every DNA unique), spread over the space."""
    index = token_id * STEP % COMBINATIONS
    found = {}
    for name, count in LAYERS:
        index, found[name] = divmod(index, count)
    return found


def copy_of(token_id: int) -> int | None:
    """The earlier token this one is a planted near-copy of, or None."""
    return token_id - 37 if token_id >= 50 and token_id % COPY_EVERY == 50 else None


def _grain(seed: int, side: int, share: float) -> np.ndarray:
    """Sparse film grain: `share` of the pixels (fewer on larger sides, so a PNG stays 30-60 KB) moved by a few
    levels; dense grain at every pixel would make the PNG incompressible (200+ KB at 384 px)."""
    rng = np.random.default_rng(seed)
    hit = rng.random((side, side, 1)) < share * (256 / side) ** 2
    return (hit * rng.normal(0, 4, (side, side, 3))).astype(np.float32)


def _background(index: int, side: int) -> np.ndarray:
    top, bottom = (np.array(c, np.float32) for c in BACKGROUNDS[index])
    t = np.linspace(0, 1, side, dtype=np.float32)[:, None, None]
    rgb = np.broadcast_to(top * (1 - t) + bottom * t, (side, side, 3)).copy()
    return rgb + _grain(1000 + index, side, 0.07)


def _draw(t: dict[str, int], side: int) -> Image.Image:
    s = side / 64
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    d = ImageDraw.Draw(image)
    skin = SKINS[t["skin"]]
    outline = (20, 20, 20, 255)

    def box(*xy: float) -> tuple[int, ...]:
        return tuple(int(v * s) for v in xy)

    w = max(1, int(s))
    d.ellipse(box(12, 40, 52, 72), fill=tuple(int(c * 0.8) for c in skin), outline=outline, width=w)
    d.ellipse(box(17, 14, 47, 46), fill=skin, outline=outline, width=w)
    pattern = PATTERNS[t["pattern"]]
    if pattern == "stripes":
        for y in range(44, 64, 5):
            d.line(box(12, y, 52, y), fill=(255, 255, 255, 255), width=2 * w)
    elif pattern == "spots":
        for x, y in ((16, 48), (28, 54), (40, 48), (34, 60), (22, 60)):
            d.ellipse(box(x, y, x + 7, y + 7), fill=(40, 30, 20, 255))
    elif pattern == "rings":
        for r in (4, 9, 14):
            d.ellipse(box(32 - r, 56 - r, 32 + r, 56 + r), outline=(250, 220, 60, 255), width=2 * w)
    d.arc(box(26, 32, 38, 40), 20, 160, fill=(40, 20, 20, 255), width=w)
    hat = HATS[t["hat"]]
    if hat == "cap":
        d.chord(box(15, 6, 49, 30), 180, 360, fill=(200, 30, 40, 255), outline=outline, width=w)
        d.rectangle(box(30, 17, 58, 21), fill=(160, 20, 30, 255))
    elif hat == "top hat":
        d.rectangle(box(22, 0, 42, 18), fill=(25, 25, 30, 255))
        d.rectangle(box(14, 17, 50, 21), fill=(25, 25, 30, 255))
        d.rectangle(box(22, 12, 42, 15), fill=(160, 30, 40, 255))
    elif hat == "crown":
        d.polygon([box(18, 20), box(18, 6), box(25, 13), box(32, 3), box(39, 13), box(46, 6), box(46, 20)],
                  fill=(235, 190, 40, 255), outline=(120, 80, 10, 255))
    elif hat == "beanie":
        d.chord(box(16, 3, 48, 34), 180, 360, fill=(40, 90, 200, 255), outline=outline, width=w)
        d.ellipse(box(29, 0, 35, 6), fill=(230, 230, 230, 255))
    elif hat == "band":
        d.rectangle(box(17, 18, 47, 22), fill=(30, 160, 90, 255))
    eyes = EYES[t["eyes"]]
    if eyes == "dots":
        d.ellipse(box(24, 25, 28, 29), fill=(10, 10, 10, 255))
        d.ellipse(box(36, 25, 40, 29), fill=(10, 10, 10, 255))
    elif eyes == "visor":
        d.rectangle(box(20, 23, 44, 30), fill=(230, 40, 60, 255), outline=outline, width=w)
    elif eyes == "wide":
        for x in (22, 34):
            d.ellipse(box(x, 21, x + 8, 31), fill=(250, 250, 250, 255), outline=outline, width=w)
            d.ellipse(box(x + 3, 24, x + 6, 28), fill=(10, 10, 10, 255))
    elif eyes == "sleepy":
        d.line(box(22, 27, 30, 27), fill=(10, 10, 10, 255), width=2 * w)
        d.line(box(34, 27, 42, 27), fill=(10, 10, 10, 255), width=2 * w)
    elif eyes == "laser":
        d.line(box(26, 27, 64, 22), fill=(255, 40, 40, 255), width=2 * w)
        d.line(box(38, 27, 64, 30), fill=(255, 40, 40, 255), width=2 * w)
    accessory = ACCESSORIES[t["accessory"]]
    if accessory == "earring":
        d.ellipse(box(44, 32, 58, 46), outline=(240, 200, 40, 255), width=3 * w)
    elif accessory == "necklace":
        d.arc(box(16, 36, 48, 62), 10, 170, fill=(230, 230, 240, 255), width=4 * w)
    elif accessory == "bowtie":
        d.polygon([box(20, 44), box(32, 50), box(44, 44), box(44, 58), box(32, 52), box(20, 58)],
                  fill=(200, 20, 120, 255), outline=outline)
    return image


def art_rgb(token_id: int, side: int = SIDE, layers: dict[str, int] | None = None) -> np.ndarray:
    """The piece as an HxWx3 uint8 array (a planted near-copy is made from its original's PNG); `layers` draws it
    with other layers (its own grain kept): a layer variant."""
    t = layers or traits(token_id)
    rgb = _background(t["background"], side)
    layer = np.asarray(_draw(t, side), np.float32)
    alpha = layer[..., 3:] / 255.0
    rgb = rgb * (1 - alpha) + layer[..., :3] * alpha
    rgb += _grain(token_id, side, 0.05)  # the piece's own grain
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def art_png(token_id: int, side: int = SIDE) -> bytes:
    """The piece's PNG bytes (Pillow's default compression, as exporters write)."""
    original = copy_of(token_id)
    if original is not None:
        return near_copy(art_png(original, side), jpeg=token_id % 200 == 50)
    return png_of(Image.fromarray(art_rgb(token_id, side)))


def near_copy(png: bytes, *, jpeg: bool) -> bytes:
    """A re-encoding of `png` a near-duplicate check must catch: a JPEG round trip (quality 95) or +2% brightness."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    if jpeg:
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=95)
        return png_of(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
    return png_of(ImageEnhance.Brightness(image).enhance(1.02))


def png_of(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def metadata(token_id: int, image_uri: str) -> dict:
    t = traits(token_id)
    return {"name": f"Avatar #{token_id}", "description": "A layered avatar (mintprep bench art).", "image": image_uri,
            "edition": token_id,
            "attributes": [{"trait_type": "Background", "value": f"bg{t['background']}"},
                           {"trait_type": "Skin", "value": f"skin{t['skin']}"},
                           {"trait_type": "Hat", "value": HATS[t["hat"]]},
                           {"trait_type": "Eyes", "value": EYES[t["eyes"]]},
                           {"trait_type": "Pattern", "value": PATTERNS[t["pattern"]]},
                           {"trait_type": "Accessory", "value": ACCESSORIES[t["accessory"]]}]}


def write_folder(root: Path, count: int, side: int = SIDE, copies: dict[int, int] | None = None) -> int:
    """A HashLips export of tokens 1..count under `root` (`images/<n>.png`, `<n>.json`); returns the image bytes.
    `copies` (copy -> original, +2% brightness) replaces the planted near-copies."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    total = 0
    for token_id in range(1, count + 1):
        if copies is None:
            data = art_png(token_id, side)
        elif token_id in copies:
            data = near_copy(art_png(copies[token_id], side), jpeg=False)
        else:
            data = png_of(Image.fromarray(art_rgb(token_id, side)))
        total += len(data)
        (root / "images" / f"{token_id}.png").write_bytes(data)
        (root / f"{token_id}.json").write_text(json.dumps(metadata(token_id, f"ipfs://IMAGES/{token_id}.png")))
    return total


def planted_copies(count: int) -> list[tuple[int, int]]:
    """(copy, original) pairs among tokens 1..count."""
    return [(t, copy_of(t)) for t in range(1, count + 1) if copy_of(t) is not None]


def imported_collection(tmp_path: Path, count: int, copies: dict[int, int], side: int = 256) -> Path:
    """`write_folder` imported (`mintprep import --from`) into a fresh collection; the collection file's path."""
    from mintprep.collection.config import load_collection
    from mintprep.commands.importing.driver import import_collection
    from tests.conftest import write_collection

    write_folder(tmp_path / "export", count, side, copies)
    path = write_collection(tmp_path / "col", size=count, generator__steps=3, generator__upscale=1)
    import_collection(load_collection(path), str(tmp_path / "export"))
    return path
