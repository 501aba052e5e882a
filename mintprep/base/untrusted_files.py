"""Reading files a user named (images, metadata, allowlists, placeholders, keystores): bounded, or a clear refusal.

Every such file is a stranger's: a FIFO would block a read forever, `/dev/zero` never ends, a symlink may
lead out of the collection's folder, and a 12000x12000 PNG of a few KB decodes to gigabytes. So the file
is opened without waiting for a writer (O_NONBLOCK), its kind and size are checked on the open
descriptor (no race with a rename) before a byte is read, `within=` refuses a path that resolves outside
a folder, and an image's pixel count is read from its header before anything is decoded.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from mintprep.base.errors import UserError

if TYPE_CHECKING:  # `status` must not import PIL (tests/speed/test_cli_imports.py); only the annotation needs it
    from PIL import Image

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_PIXELS = 4096 * 4096  # the largest image the generator makes (before mintprep's own upscale)


@contextmanager
def open_untrusted(path: Path, max_bytes: int = MAX_FILE_BYTES, *, within: Path | None = None,
                   what: str = "file", error: type[UserError] = UserError) -> Iterator[tuple[BinaryIO, int]]:
    """(binary handle, size) of `path` when it is a regular file of at most `max_bytes` (inside `within`, when
    given), for reading in pieces; `error` (a UserError kind) naming the file and what is wrong otherwise."""
    path = Path(path)
    if within is not None:
        real, folder = Path(os.path.realpath(path)), Path(os.path.realpath(within))
        if real != folder and folder not in real.parents:
            raise error(f"{path}: leads outside {within} (to {real}); give a {what} inside the collection's folder",
                        path=str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})", path=str(path)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise error(f"{path}: {kind}; give a {what}", path=str(path))
    if info.st_size > max_bytes:
        os.close(fd)
        raise error(f"{path}: {info.st_size} bytes, more than the {max_bytes} a {what} may have here", path=str(path))
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        yield handle, info.st_size


def read_regular_file(path: Path, max_bytes: int = MAX_FILE_BYTES, *, within: Path | None = None,
                      what: str = "image file", error: type[UserError] = UserError) -> bytes:
    """The bytes of `path` when it is a regular file of at most `max_bytes`; `error` naming it otherwise.

    A file that grows after the check is cut at `max_bytes + 1` bytes and refused, never read whole."""
    with open_untrusted(path, max_bytes, within=within, what=what, error=error) as (handle, _):
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"{path}: grew past the {max_bytes} bytes a {what} may have here while it was read", path=str(path))
    return data


def check_pixel_count(image: Image.Image, source: str, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse an opened (not yet decoded) image whose header announces more than `max_pixels`."""
    width, height = image.size
    if width * height > max_pixels:
        raise UserError(f"{source}: {width}x{height} pixels, more than the {max_pixels} mintprep decodes "
                        "(a decompression bomb, or not a piece of this collection)", path=source)
