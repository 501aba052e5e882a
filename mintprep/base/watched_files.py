"""Whether any file under a few folders changed since a look at them, told without reading them, as git's index and
make tell it: each file's path, size, mtime, ctime and inode.

A look keeps one digest of those identities. A file whose mtime or ctime lies within `RACY_NS` of the look could
still change in the same clock tick without its identity changing (git's "racily clean" entries), so its content is
hashed instead and checked by content later. A look gives up (None) on more than `MAX_FILES` files or more than
`MAX_RACY_BYTES` of such recent files: then there is nothing to compare with and the caller does the work itself.
What this cannot see is a change that keeps a file's size, mtime, ctime and inode (a disk flipping bits): whoever
trusts a look must have another check that reads the bytes (`mintprep audit` for a collection).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from mintprep.base.hashing import sha256_file

MAX_FILES = 250_000
MAX_RACY_BYTES = 256 << 20
RACY_NS = 2_000_000_000  # far wider than any file system's timestamp tick (ext4 and tmpfs: a jiffy, 1-10 ms)
MISSING = -1  # the size a root that does not exist is recorded with: its creation is a change
SPECIAL = -2  # the size of what is not a regular file (a FIFO, a socket): never opened, not even when recent


@dataclass(frozen=True)
class FilesSeen:
    roots: tuple[str, ...]
    digest: str  # sha256 over the identities of every file not in `racy`
    racy: dict[str, tuple[int, str]]  # path -> (size, sha256) of files changed just before the look
    taken_ns: int  # when the look began

    @property
    def worth_looking_again(self) -> bool:
        """Some files were hashed for being recent, and now they are not: a new look would keep none of them."""
        return bool(self.racy) and time.time_ns() > self.taken_ns + RACY_NS

    def to_json(self) -> dict[str, Any]:
        return {"roots": list(self.roots), "digest": self.digest, "racy": {p: list(v) for p, v in self.racy.items()},
                "taken_ns": self.taken_ns}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FilesSeen":
        """KeyError, TypeError or ValueError for anything but what `to_json` wrote."""
        racy = {str(path): (int(size), str(sha)) for path, (size, sha) in data["racy"].items()}
        return cls(tuple(str(root) for root in data["roots"]), str(data["digest"]), racy, int(data["taken_ns"]))


def look_at_files(roots: Iterable[str], skip: Callable[[str], bool]) -> FilesSeen | None:
    """The files under `roots` (folders walked, symlinks to folders not followed; a root may be a file or missing)
    but those `skip` names; None when there are too many to be worth it."""
    began = time.time_ns()
    roots = tuple(sorted(set(roots)))
    digest, racy, racy_bytes = hashlib.sha256(), {}, 0
    for count, (path, size, mtime, ctime, ino) in enumerate(_identities(roots, skip)):
        if count >= MAX_FILES:
            return None
        if size >= 0 and max(mtime, ctime) >= began - RACY_NS:
            racy_bytes += size
            if racy_bytes > MAX_RACY_BYTES:
                return None
            content = _content_sha256(path)
            if content is None:
                return None
            racy[path] = (size, content)
        else:
            digest.update(_line(path, size, mtime, ctime, ino))
    return FilesSeen(roots, digest.hexdigest(), racy, began)


def files_unchanged(seen: FilesSeen, skip: Callable[[str], bool]) -> bool:
    """Every file `seen` still is as it was, and no file came or went under its roots."""
    digest, racy_found = hashlib.sha256(), 0
    for count, (path, size, mtime, ctime, ino) in enumerate(_identities(seen.roots, skip)):
        if count >= MAX_FILES:
            return False
        kept = seen.racy.get(path)
        if kept is not None:
            if kept[0] != size or _content_sha256(path) != kept[1]:
                return False
            racy_found += 1
        else:
            digest.update(_line(path, size, mtime, ctime, ino))
    return racy_found == len(seen.racy) and digest.hexdigest() == seen.digest


def _identities(roots: tuple[str, ...], skip: Callable[[str], bool]) -> Iterator[tuple[str, int, int, int, int]]:
    """(path, size, mtime_ns, ctime_ns, inode) of every regular file (a symlink: of its target) in path order."""
    for root in roots:
        try:
            info = os.stat(root)
        except OSError:
            yield root, MISSING, 0, 0, 0
            continue
        if stat.S_ISDIR(info.st_mode):
            yield from _folder(root, skip)
        else:
            yield _identity(root, info)


def _folder(folder: str, skip: Callable[[str], bool]) -> Iterator[tuple[str, int, int, int, int]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:  # unreadable: seen as missing, so it changes when it becomes readable
        yield folder, MISSING, 0, 0, 0
        return
    for entry in entries:
        if skip(entry.path):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from _folder(entry.path, skip)
                continue
            info = entry.stat()
        except OSError:  # a dangling symlink, or a file gone meanwhile
            yield entry.path, MISSING, 0, 0, 0
            continue
        yield _identity(entry.path, info)


def _identity(path: str, info: os.stat_result) -> tuple[str, int, int, int, int]:
    size = info.st_size if stat.S_ISREG(info.st_mode) else SPECIAL
    return path, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


def _content_sha256(path: str) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


def _line(path: str, size: int, mtime: int, ctime: int, ino: int) -> bytes:
    """What the digest of a look takes of one file that is not racy."""
    return f"{path}\0{size}\0{mtime}\0{ctime}\0{ino}\n".encode("utf-8", "surrogateescape")
