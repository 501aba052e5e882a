"""What an imported file must be before mintprep records it: a raster image by its bytes, or bounded JSON.

An imported image must be a raster image by its bytes (PNG, JPEG, GIF or WebP magic, then a full decode),
whatever its name says; an imported metadata document is bounded JSON (size, nesting depth) without NaN or
Infinity, which JSON (RFC 8259) does not have but Python's parser accepts. Reading the file itself (regular files
only, capped before reading) is mintprep.base.untrusted_files.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
from PIL import Image

from mintprep.base import MAX_PIXELS, NotAcceptable, TooDeep, loads
from mintprep.guards.image_guards import flattened_rgb

MAX_IMPORTED_IMAGE_BYTES = 64 * 1024 * 1024  # far above any PFP image; a "1 GB .png" is not a token's art
MAX_DOCUMENT_BYTES = 1024 * 1024  # an ERC-721 metadata document is a few KB
MAX_DOCUMENT_DEPTH = 32
# The leading bytes of the raster formats NFT art ships in (each format's specification).
RASTER_MAGIC = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"GIF87a", "GIF"), (b"GIF89a", "GIF"))


def raster_kind(data: bytes) -> str | None:
    """PNG, JPEG, GIF or WebP by the file's leading bytes; None for anything else (SVG, JSON, HTML, ...)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    return next((kind for magic, kind in RASTER_MAGIC if data.startswith(magic)), None)


def decode_raster_image(data: bytes, *, max_bytes: int = MAX_IMPORTED_IMAGE_BYTES,
                        max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The pixels of a raster image within the limits, decoded in full (HxWx3 uint8, alpha flattened as the guards
    judge it: one decode serves the check and the verdict); NotAcceptable otherwise."""
    if len(data) > max_bytes:
        raise NotAcceptable(f"{len(data)} bytes, more than the {max_bytes} an image may have")
    kind = raster_kind(data)
    if kind is None:
        raise NotAcceptable("not a PNG, JPEG, GIF or WebP image (by its bytes, whatever its name)")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > max_pixels:
                raise NotAcceptable(f"{width}x{height} pixels, more than the {max_pixels} mintprep decodes")
            return flattened_rgb(image)
    except NotAcceptable:
        raise
    except Exception as exc:  # Pillow raises many kinds for a damaged file; all mean "not a decodable image"
        raise NotAcceptable(f"a {kind} that does not decode ({type(exc).__name__})") from None


def parse_json_document(data: bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES,
                        max_depth: int = MAX_DOCUMENT_DEPTH) -> Any:
    """A JSON document within `max_bytes` and `max_depth` levels, without NaN/Infinity; NotAcceptable otherwise."""
    if len(data) > max_bytes:
        raise NotAcceptable(f"{len(data)} bytes of metadata, more than {max_bytes}")

    def no_constant(name: str) -> None:
        raise NotAcceptable(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")

    try:  # the nesting measured before the decoder recurses (mintprep.base.untrusted_json says why)
        return loads(data, max_depth, parse_constant=no_constant)
    except TooDeep:
        raise NotAcceptable(f"JSON nested deeper than {max_depth} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotAcceptable(f"not JSON ({exc})") from None
