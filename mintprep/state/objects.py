"""Content-addressed blob store: `objects/<aa>/<sha256>`, written temp → fsync → rename.

A blob either exists whole under its hash or not at all, so a ledger row written after `put`
never points at a half file. `put_many` (and `write_durably` under it) keeps that promise for a batch at
two syncs in all, not three fsyncs per file: an fsync costs milliseconds, and a 10,000-piece import wrote
two objects per piece. A blob lost or garbled since is read again from its pinned copy where it has one
(`copies`: the ledger's, mintprep.state.pinned_copies).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path

from mintprep.base import ObjectCorrupt, ObjectMissing, read_whole, sha256_hex, write_atomic, write_durably


class ObjectStore:
    def __init__(self, root: Path, copies: Callable[[str], bytes] | None = None, *, heal: bool = False):
        self.root = root
        self._root = str(root)
        # A blob's bytes from elsewhere, checked against its sha256, or ObjectMissing saying why none could be read.
        self.copies = copies
        self.heal = heal  # put such a copy back in the store (a read-only command leaves the folder as it was)

    def path(self, sha256: str) -> Path:
        return Path(self.file_name(sha256))

    def file_name(self, sha256: str) -> str:
        """`path` as a string: pathlib's joins cost more than reading a small object."""
        return f"{self._root}/{sha256[:2]}/{sha256}"

    def put(self, data: bytes) -> str:
        digest = sha256_hex(data)
        target = self.path(digest)
        if not self.intact(digest):
            write_atomic(target, data)
        return digest

    def put_many(self, blobs: Iterable[bytes]) -> list[str]:
        """`put` for many blobs at two syncs in all (see `write_durably`); their sha256s in order."""
        digests, missing = [], {}
        for data in blobs:
            digest = sha256_hex(data)
            digests.append(digest)
            if digest not in missing and not self.intact(digest):
                missing[digest] = data
        write_durably((self.file_name(digest), data) for digest, data in missing.items())
        return digests

    def get(self, sha256: str) -> bytes:
        """The blob's bytes, checked against its name; one lost or garbled is read from `copies` (and put back when
        `heal`), else ObjectMissing / ObjectCorrupt."""
        data = self._stored(sha256)
        if data is not None and sha256_hex(data) == sha256:
            return data
        fault, problem = ((ObjectMissing, "is missing") if data is None else
                          (ObjectCorrupt, f"is corrupt: its bytes hash to {sha256_hex(data)}"))
        if self.copies is None:
            raise fault(f"{self.path(sha256)} {problem}")
        try:
            copy = self.copies(sha256)
        except ObjectMissing as why:
            raise fault(f"{self.path(sha256)} {problem}, and no pinned copy of it could be read ({why})") from None
        if self.heal:
            with contextlib.suppress(OSError):  # a folder or a file where the store's belong: the bytes still serve
                write_atomic(self.path(sha256), copy)
        return copy

    def _stored(self, sha256: str) -> bytes | None:
        """The file under the blob's name, None where there is none (nothing there, or a folder where the file or its
        shard folder should be: each read as "Is a directory" or "Not a directory", naming no file)."""
        try:
            return read_whole(self.file_name(sha256))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def intact(self, sha256: str) -> bool:
        """Present here and still hashing to its name (a garbled file is as good as absent; no copy is read)."""
        data = self._stored(sha256)
        return data is not None and sha256_hex(data) == sha256
