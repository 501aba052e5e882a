"""A hidden drop (`chain.reveal`) publishes nothing of its art or real metadata before the reveal.

Until `mintprep reveal` releases them, the images, the real metadata directory and the manifest (which lists every
image CID) are pinned in the collection's local store only (`publication_backend`), so no public node holds, and
so announces, any of their CIDs; the contract's contractURI names a placeholder collection
document, and its tokens show the placeholder token document. Both placeholders are a pure function of the
config (`collection.unrevealed.placeholder_documents`), so `check` knows what the chain should hold without the
ledger. The directory's CID reaches the chain only inside the provenance hash's commitment until the reveal sets the base URI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.collection import Collection, Placeholders, placeholder_documents
from mintprep.state import withholding

if TYPE_CHECKING:
    from mintprep.ipfs import PinBackend
    from mintprep.state import Ledger, Workspace



def pin_placeholders(ws: "Workspace") -> Placeholders:
    """Pin the placeholder documents on the configured backend (public: they hide nothing) and return them."""
    from mintprep.stages.pin import pin_bytes

    found = placeholder_documents(ws.col)
    image_name = str(ws.spec.chain.reveal.placeholder_image)  # type: ignore[union-attr]
    for kind, data in found.files.items():
        pin_bytes(ws.ledger, ws.backend, ws.profile, data, kind=kind,
                  name=image_name if kind == "placeholder-image" else f"{kind}.json")
    return found


def art_committed_before_reveal(col: Collection, ledger: "Ledger") -> bool:
    """A hidden drop deployed and not yet revealed, as the chain says (released art does not make it revealed):
    the contract's provenance hash (immutable since the deploy) commits to today's images, and `reveal` derives
    its secret from that hash, so no image may change until then."""
    if col.spec.chain.reveal is None:
        return False
    from mintprep.chain import read_live_drop

    live = read_live_drop(col, ledger)
    return live is not None and not live.revealed


def publication_backend(ws: "Workspace") -> "PinBackend":
    """Where the images, the metadata directory and the manifest are pinned and read back from: the local store
    while withheld, else the configured backend."""
    if withholding(ws.col, ws.ledger):
        from mintprep.ipfs import LocalBackend

        return LocalBackend(ws.col.state_dir)
    return ws.backend
