"""`mintprep publish`: rebuild the page, publish it (mintprep.page.publish), and record where it went."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mintprep.page.publish import PublishResult, publish_collection

if TYPE_CHECKING:
    from mintprep.state.workspace import Workspace


def publish_page(ws: "Workspace", **http: Any) -> PublishResult:
    """`http` (policy=RetryPolicy, sleep=callable) tunes retries of remote targets."""
    inputs, result = publish_collection(ws, **http)
    ws.ledger.record_publish(result.target, result.location, result.site_cid, inputs.manifest["metadata_root"],
                             inputs.contract)
    return result
