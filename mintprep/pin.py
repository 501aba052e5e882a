"""The pin stage: content → CID computed locally → pinned on the backend and verified → ledger.

Only content the caller has already accepted reaches here; the ledger row is written after the
backend's copy was fetched back and checked, so "pinned" in the ledger always means verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mintprep.hashing import sha256_hex
from mintprep.ipfs.backends import PinBackend
from mintprep.ipfs.unixfs import DagImport, Profile, import_bytes
from mintprep.ledger import Ledger


@dataclass(frozen=True)
class PinOutcome:
    cid: str
    newly_pinned: bool


def pin_content(ledger: Ledger, backend: PinBackend, profile: Profile, *, content_sha256: str,
                make_dag: Callable[[], DagImport], kind: str, name: str) -> PinOutcome:
    """Pin a DAG unless this content is already pinned (verified) on this backend under this profile.

    `make_dag` runs only when a pin is needed, so a rerun with nothing changed imports nothing.
    """
    known = ledger.pinned_cid(content_sha256, profile.name, backend.ledger_key)
    if known is not None:
        return PinOutcome(known, newly_pinned=False)
    receipt = backend.pin_dag(make_dag(), name=name)
    ledger.record_pin(cid=receipt.cid, backend=backend.ledger_key, content_sha256=content_sha256, profile=profile.name,
                      kind=kind, name=name, remote_id=receipt.remote_id)
    return PinOutcome(receipt.cid, newly_pinned=True)


def pin_bytes(ledger: Ledger, backend: PinBackend, profile: Profile, data: bytes, *, kind: str,
              name: str) -> PinOutcome:
    return pin_content(ledger, backend, profile, content_sha256=sha256_hex(data),
                       make_dag=lambda: import_bytes(data, profile),
                       kind=kind, name=name)
