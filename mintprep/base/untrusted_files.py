"""Reading files a user named (images, metadata, allowlists, placeholders, keystores): bounded, or a clear refusal.

Every such file is a stranger's: a FIFO would block a read forever, `/dev/zero` never ends, a symlink may
lead out of the collection's folder, and a 12000x12000 PNG of a few KB decodes to gigabytes. So the file
is opened without waiting for a writer (O_NONBLOCK), its kind and size are checked on the open
descriptor (no race with a rename) before a byte is read, `within=` refuses a path that resolves outside
a folder, and an image's pixel count is read from its header before anything is decoded.
"""

from __future__ import annotations

import errno
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
        real, folder = os.path.realpath(path), os.path.realpath(within)
        if not _inside(real, folder):
            raise error(f"{path}: leads outside {within} (to {real}); give a {what} inside the collection's folder",
                        path=str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})", path=str(path)) from None
    size = _checked_size(fd, path, max_bytes, what, error)
    with os.fdopen(fd, "rb") as handle:
        yield handle, size


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip("/") + "/")


def _checked_size(fd: int, path: Path | str, max_bytes: int, what: str, error: type[UserError]) -> int:
    """The size of the open file `fd` when it is a regular file within `max_bytes` (then blocking again); else
    `fd` is closed and `error` raised. Checked on the descriptor, so a rename after the open changes nothing."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise error(f"{path}: {kind}; give a {what}", path=str(path))
    if info.st_size > max_bytes:
        os.close(fd)
        raise error(f"{path}: {info.st_size} bytes, more than the {max_bytes} a {what} may have here", path=str(path))
    os.set_blocking(fd, True)
    return info.st_size


def read_regular_file(path: Path, max_bytes: int = MAX_FILE_BYTES, *, within: Path | None = None,
                      what: str = "image file", error: type[UserError] = UserError) -> bytes:
    """The bytes of `path` when it is a regular file of at most `max_bytes`; `error` naming it otherwise.

    A file that grows after the check is cut at `max_bytes + 1` bytes and refused, never read whole."""
    with open_untrusted(path, max_bytes, within=within, what=what, error=error) as (handle, _):
        data = handle.read(max_bytes + 1)
    return _whole(data, path, max_bytes, what, error)


def _whole(data: bytes, path: Path | str, max_bytes: int, what: str, error: type[UserError]) -> bytes:
    if len(data) > max_bytes:
        raise error(f"{path}: grew past the {max_bytes} bytes a {what} may have here while it was read", path=str(path))
    return data


class FolderFiles:
    """Many files of one folder a user named (an import's thousands of images and documents), each read as
    `read_regular_file(path, within=folder)` reads it, without resolving every path afresh.

    Each directory is resolved once and, when it lies inside the folder, opened once; a file is then opened
    relative to that open directory with O_NOFOLLOW, so neither a directory swapped for a symlink meanwhile
    nor a symlinked file leads out. A symlinked file, or a name that walks up, is resolved in full as
    `read_regular_file` does. Use it in a `with` block (it holds the directories open)."""

    def __init__(self, folder: Path, *, error: type[UserError] = UserError) -> None:
        self.folder, self.error = Path(folder), error
        self._real = os.path.realpath(folder)
        self._dirs: dict[str, int | None] = {}  # directory as named -> its descriptor; None: outside the folder

    def __enter__(self) -> FolderFiles:
        return self

    def __exit__(self, *_: object) -> None:
        for fd in self._dirs.values():
            if fd is not None:
                os.close(fd)
        self._dirs.clear()

    def read(self, path: Path | str, max_bytes: int = MAX_FILE_BYTES, *, what: str = "image file") -> bytes | None:
        """The bytes of `path`, None when there is no such file, `error` naming it when it is unfit or outside."""
        path = str(path)
        directory, name = os.path.split(path)
        dir_fd = None if name in ("", ".", "..") else self._directory(directory)
        if dir_fd is None:
            return self._read_resolved(path, max_bytes, what)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symlink: where it leads is checked in full
                return self._read_resolved(path, max_bytes, what)
            raise self.error(f"{path}: cannot read ({exc.strerror or exc})", path=path) from None
        _checked_size(fd, path, max_bytes, what, self.error)
        with os.fdopen(fd, "rb") as handle:
            return _whole(handle.read(max_bytes + 1), path, max_bytes, what, self.error)

    def _directory(self, directory: str) -> int | None:
        if directory not in self._dirs:
            self._dirs[directory] = self._open_directory(directory)
        return self._dirs[directory]

    def _open_directory(self, directory: str) -> int | None:
        """`directory` opened, when it resolves inside the folder and is still that place once open."""
        real = os.path.realpath(directory)
        if not _inside(real, self._real):
            return None
        try:
            fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None  # absent or unreadable: `_read_resolved` says which
        opened, resolved = os.fstat(fd), os.stat(real)
        if (opened.st_dev, opened.st_ino) != (resolved.st_dev, resolved.st_ino):
            os.close(fd)
            return None
        return fd

    def _read_resolved(self, path: str, max_bytes: int, what: str) -> bytes | None:
        if not os.path.lexists(path):
            return None
        return read_regular_file(Path(path), max_bytes, within=self.folder, what=what, error=self.error)


def check_pixel_count(image: Image.Image, source: str, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse an opened (not yet decoded) image whose header announces more than `max_pixels`."""
    width, height = image.size
    if width * height > max_pixels:
        raise UserError(f"{source}: {width}x{height} pixels, more than the {max_pixels} mintprep decodes "
                        "(a decompression bomb, or not a piece of this collection)", path=source)
