"""The driver behind `mintprep serve`: the collection's page served on 127.0.0.1 (mintprep.page.serve), the ledger
read only, until the caller's block exits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mintprep.collection import Collection
from mintprep.page import Preview, preview
from mintprep.state import Workspace


@contextmanager
def serving(col: Collection, port: int = 0) -> Iterator[Preview]:
    """The page served on 127.0.0.1:`port` (0: any free port) until the block exits."""
    with Workspace.open(col, readonly=True) as ws, preview(ws, port=port) as running:
        yield running
