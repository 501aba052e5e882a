"""Every error mintprep raises on purpose, in one family: a caller catches the branch it cares about, and the CLI
(`cli/app.py`, the one exit funnel) reports any of them by its `kind` and `exit_code`, without a traceback.

    MintprepError (exit 1)                 anything mintprep reports without a traceback
    ├── UserError (exit 2)                 bad input or an unusable environment; nothing changed
    │   ├── ConfigError                    collection.yaml: the message names the YAML path
    │   │   ├── YamlRefused                text that is not a YAML document mintprep will read
    │   │   └── TemplateError              a prompt template brace that is not `{name}`, `{{` or `}}`
    │   ├── NotAcceptable                  bytes from elsewhere that an imported file must not be
    │   ├── NotRevealed                    a hidden drop's base URI is `mintprep reveal`'s to set
    │   ├── LedgerBusy                     another process holds the ledger's writer lock
    │   ├── ProfileError                   a contract whose roles cannot be told (unknown, ambiguous, missing)
    │   └── NoContract                     no code at the contract's address on this chain
    ├── RemoteError                        a remote service failed after retries
    │   ├── ServiceUnavailable             every attempt failed until the give-up time
    │   ├── ResponseTooLarge               an answer longer than its request allows, cut off as it arrived
    │   ├── PinsFailed                     some pieces could not be pinned (the rest are recorded)
    │   ├── VerificationFailed             what was pinned does not read back intact
    │   ├── CidMismatch                    a backend answered another root CID
    │   └── KuboError                      kubo answered a command with its JSON error
    ├── Unreadable                         a block or file that cannot be read intact from where asked
    │   ├── BlockNotFound (a KeyError)     the block is absent: a missing block, not a failed request
    │   ├── CorruptBlock (a ValueError)    bytes that do not hash to the CID or decode as it says
    │   ├── NotUnixFS (a ValueError)       an intact DAG of the wrong UnixFS kind
    │   └── TooLarge (a ValueError)        a block over the block limit, or a walk past its budget
    │       └── FileTooLarge               a file larger than its reader holds, refused while read
    ├── PageCannotMint                     a mint page the contract would refuse: not built, not published
    ├── TooDeep                            JSON from elsewhere nested deeper than its reader allows
    ├── CarError                           a malformed CAR stream, or a block in it that does not hash to its CID
    ├── ObjectCorrupt                      a stored blob no longer hashes to its name
    │   └── ObjectMissing                  a stored blob the ledger names is not in the store at all
    ├── KeysOutdated                       the loaded model or machine is not what the request keys describe
    ├── DiskFull                           no space where mintprep writes; what was there is unchanged
    └── Rejected                           a sample a generation guard refused (recorded as an attempt)

UserError's message must name the field or file and say what is wrong; no message may contain a secret. `field`
and `path`, when known, name the offending setting and file for `--json` answers. The Unreadable family keeps
KeyError and ValueError as second bases for callers of the mapping and parsing protocols. A module's private
control-flow exceptions (`net/http.py` `_Deadline`, `ipfs/gateway.py` `_NotFound`) never leave it.
"""

from __future__ import annotations

import errno
import os
from typing import Any
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


class ProfileError(UserError):
    """The contract's roles cannot be told: unknown, ambiguous, or a declared function it does not have."""


class NoContract(UserError):
    """No code at the address on this chain (not deployed yet, or another network)."""



class YamlRefused(ConfigError):
    """The text is not a YAML document mintprep will read; the message says where and why."""


class TemplateError(ConfigError):
    """The template has a brace that is not `{name}`, `{{` or `}}`."""


class NotAcceptable(UserError):
    """Bytes a stranger handed over that mintprep will not take; the message says why (the caller names whose)."""


class NotRevealed(UserError):
    """The chain says a hidden drop is not revealed yet: its base URI is `mintprep reveal`'s to set, no one else's."""


class ResponseTooLarge(RemoteError):
    """An answer longer than the request allows (`RetryPolicy.max_body_bytes`): cut off as it arrived, not retried."""


class ServiceUnavailable(RemoteError):
    """Every attempt failed (timeouts, connection errors, retryable statuses) until the give-up time."""


class PinsFailed(RemoteError):
    """Some pieces could not be pinned; every other one is pinned and recorded, so a rerun retries only these."""

    SHOWN = 20  # the message names this many; `failed` holds every one

    def __init__(self, backend: str, failed: dict[str, str], total: int) -> None:
        listed = "; ".join(f"{name}: {reason}" for name, reason in list(failed.items())[: self.SHOWN])
        more = f"; and {len(failed) - self.SHOWN} more" if len(failed) > self.SHOWN else ""
        super().__init__(f"{len(failed)} of {total} pieces could not be pinned on {backend} (the others are pinned "
                         f"and recorded; run again to retry these): {listed}{more}")
        self.failed = failed


class VerificationFailed(RemoteError):
    """What was pinned cannot be read back intact; the message names the piece and the CIDs."""

    def __init__(self, piece: str, backend: str, report: Any) -> None:  # report: mintprep.ipfs.verify.VerifyReport
        super().__init__(f"{piece}: pinned to {backend} but not retrievable intact: {report.describe()}")
        self.report = report


class CidMismatch(RemoteError):
    """The backend answered a root CID other than the one computed locally: the pin is refused."""


class KuboError(RemoteError):
    """kubo answered a command with its JSON error."""


class Unreadable(MintprepError):
    """A block or file that cannot be read intact from the place asked."""

    kind = "unreadable"


class BlockNotFound(Unreadable, KeyError):
    """A block is absent from the place asked: a missing block, not a failed request."""

    def __init__(self, cid: object) -> None:  # a mintprep.ipfs CID, or its text
        super().__init__(str(cid))
        self.cid = cid


class CorruptBlock(Unreadable, ValueError):
    """A block whose bytes do not hash to its CID, or that does not decode as what its CID says it is."""

    def __init__(self, cid: object, why: str) -> None:  # a mintprep.ipfs CID
        super().__init__(f"block {cid}: {why}")
        self.cid = cid


class NotUnixFS(Unreadable, ValueError):
    """The DAG is intact but is not the kind of UnixFS node asked for (a directory where a file was expected)."""


class TooLarge(Unreadable, ValueError):
    """A block over the per-block limit, or a walk past the blocks or bytes its caller budgeted for it (a
    directory of a million links, a file DAG that names one child 2^27 times): refused, not read on."""


class FileTooLarge(TooLarge):
    """A file larger than its reader will hold (a "1 GB image" from a stranger's directory): refused while read."""


class PageCannotMint(MintprepError):
    """The page would offer a mint the contract refuses: it is not built (exit 1), and the message says why."""

    kind = "page-cannot-mint"


class TooDeep(MintprepError):
    """JSON nested deeper than its reader allows (a reader of a user's file reports it as that file's UserError)."""

    kind = "too-deep"


class CarError(MintprepError):
    """A CAR stream is malformed, or one of its blocks does not hash to its CID."""


class ObjectCorrupt(MintprepError):
    """A stored blob no longer hashes to its name (disk rot, a hand edit), and no pinned copy of it could be read
    back (mintprep.state.pinned_copies); putting the bytes again heals it."""


class ObjectMissing(ObjectCorrupt):
    """A stored blob the ledger names is not in the object store at all (the folder copied or cleaned without it),
    and no pinned copy of it could be read back."""


class KeysOutdated(MintprepError):
    """The model as loaded, or the machine it runs on, is not what the request keys were computed for."""


class Rejected(MintprepError):
    """A generated sample a guard refused: `guard` names it, `metrics` holds what it measured; `thumbnail`, a small
    PNG of what was decoded, when the rejection came after pixels existed (for review). The generator records it as
    an attempt and resamples; it never ends a command."""

    kind = "rejected"

    def __init__(self, guard: str, reason: str, metrics: dict[str, float] | None = None, step: int | None = None,
                 thumbnail: bytes | None = None):
        super().__init__(f"{guard}: {reason}")
        self.guard, self.reason, self.metrics, self.step = guard, reason, metrics or {}, step
        self.thumbnail = thumbnail
