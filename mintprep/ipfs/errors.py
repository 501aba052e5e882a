"""Every way a block or a file cannot be read back: one base, `Unreadable`, so a caller that only needs to know
"not readable intact" catches one name, and a caller that cares which way catches the subclass. The family is
defined with every other error in `mintprep.base.errors` (a MintprepError: one that escapes is reported, exit 1);
IPFS's own modules and its face name it from here."""

from __future__ import annotations

from mintprep.base import BlockNotFound, CorruptBlock, FileTooLarge, NotUnixFS, TooLarge, Unreadable

__all__ = ["BlockNotFound", "CorruptBlock", "FileTooLarge", "NotUnixFS", "TooLarge", "Unreadable"]
