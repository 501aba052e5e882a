"""The pin stage: content → CID computed locally → pinned on the backend and verified → ledger.

Only content the caller has already accepted reaches here; the ledger row is written after the
backend's copy was fetched back and checked, so "pinned" in the ledger always means verified.
Many pieces are pinned with the backend's concurrency (`pin_pieces`); the rows are written here, in the
calling thread, a batch at a time (every `ROWS_PER_COMMIT` verified pieces or `SECONDS_PER_COMMIT`, whichever
comes first, and whatever is left when it stops, even on an error), so a run stopped half way keeps what it
pinned; a kill loses at most the last batch's rows, whose pieces the rerun finds already on the backend.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

from mintprep.base import PinsFailed, RemoteError, sha256_hex
from mintprep.ipfs import DagImport, PinBackend, PinRequest, Profile, import_bytes
from mintprep.state import Ledger, PinRow

ROWS_PER_COMMIT = 256
SECONDS_PER_COMMIT = 1.0


@dataclass(frozen=True)
class PinOutcome:
    cid: str
    newly_pinned: bool


@dataclass(frozen=True)
class PinItem:
    content_sha256: str
    make_dag: Callable[[], DagImport]  # runs only when a pin is needed, so a rerun with nothing changed imports nothing
    kind: str
    name: str


def pin_pieces(ledger: Ledger, backend: PinBackend, profile: Profile, items: Sequence[PinItem],
               advance: Callable[[], None] = lambda: None, *, force: bool = False) -> list[PinOutcome]:
    """Pin every item not already pinned (verified) on this backend under this profile; outcomes in item order.
    `force` pins and verifies every item whatever the ledger holds (as `pin_content`'s).

    Raises PinsFailed naming each piece that failed, after recording every one that did not."""
    outcomes: list[PinOutcome | None] = [None] * len(items)
    todo: list[int] = []
    for index, item in enumerate(items):
        known = None if force else ledger.pinned_cid(item.content_sha256, profile.name, backend.ledger_key)
        if known is None:
            todo.append(index)
        else:
            outcomes[index] = PinOutcome(known, newly_pinned=False)
            advance()
    failed: dict[int, str] = {}
    requests = [PinRequest(items[index].name, items[index].make_dag) for index in todo]
    rows: list[PinRow] = []
    committed = time.monotonic()
    try:
        for position, result in backend.pin_many(requests):
            item, index = items[todo[position]], todo[position]
            if isinstance(result, RemoteError):
                failed[index] = str(result)
            else:
                rows.append(PinRow(result.cid, backend.ledger_key, item.content_sha256, profile.name, item.kind,
                                   item.name, result.remote_id))
                outcomes[index] = PinOutcome(result.cid, newly_pinned=True)
            if len(rows) >= ROWS_PER_COMMIT or time.monotonic() - committed >= SECONDS_PER_COMMIT:
                ledger.record_pins(rows)
                rows, committed = [], time.monotonic()
            advance()
    finally:
        ledger.record_pins(rows)
    if failed:
        raise PinsFailed(backend.name, {items[index].name: failed[index] for index in sorted(failed)}, len(items))
    return [outcome for outcome in outcomes if outcome is not None]


def pin_content(ledger: Ledger, backend: PinBackend, profile: Profile, *, content_sha256: str,
                make_dag: Callable[[], DagImport], kind: str, name: str, force: bool = False) -> PinOutcome:
    """One piece: as `pin_pieces`, but its error is raised as the backend raised it. `force` uploads and verifies
    it even when the ledger has it pinned (a repair of a pin the backend lost)."""
    known = None if force else ledger.pinned_cid(content_sha256, profile.name, backend.ledger_key)
    if known is not None:
        return PinOutcome(known, newly_pinned=False)
    receipt = backend.pin_dag(make_dag(), name=name)
    ledger.record_pin(cid=receipt.cid, backend=backend.ledger_key, content_sha256=content_sha256, profile=profile.name,
                      kind=kind, name=name, remote_id=receipt.remote_id)
    return PinOutcome(receipt.cid, newly_pinned=True)


def pin_bytes(ledger: Ledger, backend: PinBackend, profile: Profile, data: bytes, *, kind: str,
              name: str, force: bool = False) -> PinOutcome:
    return pin_content(ledger, backend, profile, content_sha256=sha256_hex(data),
                       make_dag=lambda: import_bytes(data, profile),
                       kind=kind, name=name, force=force)
