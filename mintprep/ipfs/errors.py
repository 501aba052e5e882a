"""Every way a block or a file cannot be read back: one base, `Unreadable`, so a caller that only needs to know
"not readable intact" catches one name, and a caller that cares which way catches the subclass."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mintprep.ipfs.cid import CID


class Unreadable(Exception):
    """A block or file that cannot be read intact from the place asked."""


class BlockNotFound(Unreadable, KeyError):
    """A block is absent from the place asked: a missing block, not a failed request."""

    def __init__(self, cid: "CID | str") -> None:
        super().__init__(str(cid))
        self.cid = cid


class CorruptBlock(Unreadable, ValueError):
    """A block whose bytes do not hash to its CID, or that does not decode as what its CID says it is."""

    def __init__(self, cid: "CID", why: str) -> None:
        super().__init__(f"block {cid}: {why}")
        self.cid = cid


class NotUnixFS(Unreadable, ValueError):
    """The DAG is intact but is not the kind of UnixFS node asked for (a directory where a file was expected)."""


class TooLarge(Unreadable, ValueError):
    """A block over the per-block limit, or a walk past the blocks or bytes its caller budgeted for it (a
    directory of a million links, a file DAG that names one child 2^27 times): refused, not read on."""


class FileTooLarge(TooLarge):
    """A file larger than its reader will hold (a "1 GB image" from a stranger's directory): refused while read."""
