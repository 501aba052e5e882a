"""Review thumbnails kept by image hash, so a second `review` encodes none (`.mintprep/thumbnails/`).

A thumbnail is a pure function of the image bytes and how it is made (`variant`: the upscale undone, the side,
the encoder), so `<sha256>-<variant>.png` names it. `review` opens the ledger read-only and may run on a
read-only folder: a thumbnail is written to a temp file and renamed into place (a reader sees a whole file or
none), and where the folder cannot be written the cache is simply not filled. A file that is not a whole PNG
(cut short by a crash before the rename reached the disk) is made again.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from mintprep.base import StateDir

PNG_START, PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"


class ThumbnailCache:
    def __init__(self, state_dir: Path, variant: str) -> None:
        self.folder = StateDir(Path(state_dir)).thumbnails
        self.variant = variant
        self.writable = True  # until a write fails: then the rest of this command only reads

    def get(self, sha256: str, make: Callable[[], bytes]) -> bytes:
        """The thumbnail of the image `sha256`, from the cache or made by `make` (and kept where possible)."""
        path = self.folder / f"{sha256}-{self.variant}.png"
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            if data.startswith(PNG_START) and data.endswith(PNG_END):
                return data
        data = make()
        if self.writable:
            self.writable = _write(path, data)
        return data


def _write(path: Path, data: bytes) -> bool:
    try:
        path.parent.mkdir(exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
