"""The image stage: accepted images pinned where the drop's art is pinned (a hidden drop's: the local store until
the reveal, mintprep.stages.withheld), verified there; and a lost local copy restored from its pin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mintprep.base import sha256_hex
from mintprep.collection import PinnedPiece
from mintprep.ipfs import PinBackend, Unreadable, import_bytes, read_file
from mintprep.stages.pin import PinItem, PinOutcome, pin_pieces
from mintprep.stages.withheld import publication_backend
from mintprep.state import Workspace

if TYPE_CHECKING:
    from mintprep.stages.generate import Candidate


@dataclass(frozen=True)
class Pinned:
    pieces: list[PinnedPiece]
    newly_pinned: int


def pin_accepted(ws: Workspace, candidates: list[Candidate]) -> Pinned:
    """Pin every accepted image where the drop's art is pinned (a hidden drop's: the local store until the reveal)
    and return the pinned pieces."""
    outcomes = pin_images(ws, publication_backend(ws), [(c.plan.token_id, c.png_sha256) for c in candidates])
    pieces = [PinnedPiece.of(c.plan, c.png_sha256, outcome.cid, c.provenance, c.request_key, c.source_metadata_sha256)
              for c, outcome in zip(candidates, outcomes)]
    return Pinned(pieces, sum(outcome.newly_pinned for outcome in outcomes))


def pin_images(ws: Workspace, backend: PinBackend, images: Sequence[tuple[int, str]]) -> list[PinOutcome]:
    """Pin each (token id, PNG sha256) image of the object store on `backend`, verified there, several in flight;
    outcomes in order."""
    ledger = ws.ledger
    # Keyed by the sha256 the ledger already holds: an unchanged piece's PNG is not even read.
    items = [PinItem(sha, lambda sha=sha: import_bytes(ledger.objects.get(sha), ws.profile),
                     kind="image", name=f"{ws.spec.symbol}-{token_id}.png") for token_id, sha in images]
    with ws.progress.task("pin", len(items)) as advance:
        return pin_pieces(ledger, backend, ws.profile, items, advance)


def restore_object(ws: Workspace, png_sha256: str, image_cid: str) -> bool:
    """The local copy is intact, or is rewritten from the pinned (verified) bytes; False when neither has it."""
    if ws.ledger.objects.intact(png_sha256):
        return True
    try:
        data = read_file(image_cid, publication_backend(ws).fetch_block)
    except Unreadable:
        return False
    if sha256_hex(data) != png_sha256:
        return False
    ws.ledger.objects.put(data)
    return True
