"""Reading files a stranger handed over (`mintprep validate`): bounded time and memory, or a clear refusal.

A FIFO would block a read forever, a directory is not an image, and a 12000x12000 PNG of a few KB
decodes to gigabytes: the file kind and size are checked on the open descriptor (no race with a
rename), and an image's pixel count is read from its header before anything is decoded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from PIL import Image

from mintprep.base.errors import UserError

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_PIXELS = 4096 * 4096  # the largest image the generator makes (before mintprep's own upscale)


def read_regular_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path` when it is a regular file of at most `max_bytes`; UserError naming it otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})", path=str(path)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise UserError(f"{path}: {kind}; give image files", path=str(path))
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > max_bytes:
            raise UserError(f"{path}: {info.st_size} bytes, more than the {max_bytes} an image may have here",
                            path=str(path))
        return handle.read(max_bytes + 1)[:max_bytes]


def check_pixel_count(image: Image.Image, source: str, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse an opened (not yet decoded) image whose header announces more than `max_pixels`."""
    width, height = image.size
    if width * height > max_pixels:
        raise UserError(f"{source}: {width}x{height} pixels, more than the {max_pixels} mintprep decodes "
                        "(a decompression bomb, or not a piece of this collection)", path=source)
