"""`mintprep publish`: rebuild the page, publish it (mintprep.page.publish), and record where it went: the page
stage's publish step (mintprep.stages.page), which `audit --repair` runs too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.stages import publish_page
from mintprep.state import Workspace

if TYPE_CHECKING:
    from mintprep.collection import Collection
    from mintprep.page import PublishResult

__all__ = ["publish_page", "publish_site"]


def publish_site(col: Collection) -> PublishResult:
    """`publish_page` over the collection's Workspace: the page rebuilt, published to `page.publish.target`, recorded."""
    with Workspace.open(col) as ws:
        return publish_page(ws)
