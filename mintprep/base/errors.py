"""Error kinds the CLI maps to exit codes.

UserError (exit 2) is bad input: a config field, a file, an unreachable endpoint the user named.
Its message must name the field or file and say what is wrong; it must never contain a secret.
`field` and `path`, when known, name the offending setting and file for `--json` answers.
"""

from __future__ import annotations

import errno
import os
import shutil


class MintprepError(Exception):
    """Base class for errors mintprep reports without a traceback."""

    exit_code = 1
    kind = "error"

    def __init__(self, message: str = "", *, field: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.path = path


class UserError(MintprepError):
    """Bad input or an unusable environment: exit status 2, nothing changed."""

    exit_code = 2
    kind = "input"


class ConfigError(UserError):
    """collection.yaml is malformed or has a field that is wrong; message names the YAML path."""

    kind = "config"


class RemoteError(MintprepError):
    """A remote service (IPFS backend, gateway, RPC, Netlify) failed after retries."""

    kind = "remote"


class DiskFull(MintprepError):
    """No space left where mintprep writes: exit 1, and what was there before is unchanged (writes are atomic)."""

    kind = "disk-full"

    def __init__(self, path: str | os.PathLike[str], needed: int | None, *, more_than: bool = False) -> None:
        need = f"needs {'more than ' if more_than else ''}{needed} bytes" if needed is not None else "needs more space"
        super().__init__(f"disk full at {path} ({need}); free some space and run the command again", path=str(path))


DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_SQLITE_IOERR, _SQLITE_FULL = 10, 13
_SQLITE_PAGE = 4096  # SQLite's default page: the least a write needs
_SQLITE_ROOM = 1 << 20  # free space under which SQLite's "disk I/O error" is a full disk (WAL index, journal)


def sqlite_disk_full(db: str | os.PathLike[str], exc: Exception) -> DiskFull | None:
    """DiskFull naming `db` when SQLite failed for want of space, else None. SQLite says SQLITE_FULL when a write
    finds the disk full, but "disk I/O error" (SQLITE_IOERR) when there is no room to grow the WAL index (-shm) or
    a journal: with under 1 MiB free beside the file, that too is a full disk, and the file is not damaged."""
    code = getattr(exc, "sqlite_errorcode", None)
    code = code & 0xFF if isinstance(code, int) else None  # extended codes carry the primary in the low byte
    if code == _SQLITE_FULL or "disk is full" in str(exc):
        return DiskFull(db, _SQLITE_PAGE)
    if code == _SQLITE_IOERR or "disk I/O error" in str(exc):
        try:
            free = shutil.disk_usage(os.path.dirname(os.fspath(db)) or ".").free
        except OSError:
            return None
        if free < _SQLITE_ROOM:
            return DiskFull(db, _SQLITE_ROOM - free, more_than=True)
    return None


class LedgerBusy(UserError):
    """Another mintprep process holds the ledger's writer lock."""

    kind = "busy"

