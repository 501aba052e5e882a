"""`mintprep audit`: walk what is already pinned and published back from the ledger and say what is broken
(the walk is the audit stage, mintprep.stages.audit). Read-only: the ledger is opened read-only."""

from __future__ import annotations

from collections.abc import Sequence

from mintprep.collection import Collection
from mintprep.stages import AuditReport, audit_workspace
from mintprep.state import Workspace

__all__ = ["AuditReport", "audit_collection"]


def audit_collection(col: Collection, *, gateways: Sequence[str] = (), check_chain: bool = True) -> AuditReport:
    """Check every pinned image and metadata file, the manifest, the page and (when deployed) the chain."""
    with Workspace.open(col, readonly=True) as ws:
        return audit_workspace(ws, gateways=gateways, check_chain=check_chain)
