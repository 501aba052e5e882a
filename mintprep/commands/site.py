"""The drivers behind `mintprep publish` and `mintprep serve`: each opens the collection's Workspace, builds the page
from the ledger and publishes it (recorded) or serves it on 127.0.0.1 until the caller's block exits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mintprep.collection.config import Collection
from mintprep.state.workspace import Workspace

if TYPE_CHECKING:
    from mintprep.page.publish import PublishResult
    from mintprep.page.serve import Preview


def publish(col: Collection) -> "PublishResult":
    """Rebuild the page and publish it to `page.publish.target`; the ledger records where it went."""
    from mintprep.commands.publish import publish_page

    with Workspace.open(col) as ws:
        return publish_page(ws)


@contextmanager
def serving(col: Collection, port: int = 0) -> Iterator["Preview"]:
    """The page served on 127.0.0.1:`port` (0: any free port), the ledger read only, until the block exits."""
    from mintprep.page.serve import preview

    with Workspace.open(col, readonly=True) as ws, preview(ws, port=port) as running:
        yield running
