"""Whether a hidden drop's art and real metadata were released: the ledger's `metadata-released` row, written by
`mintprep reveal` once the images, the real metadata directory and the manifest are pinned on the configured backend
(until then they are in the collection's local store only, `stages.withheld`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mintprep.collection import Collection
    from mintprep.state.ledger import Ledger

RELEASED_KIND = "metadata-released"  # ledger chain_txs row: the images and real directory are on the configured backend


def released(ledger: "Ledger") -> bool:
    return bool(ledger.chain_txs(RELEASED_KIND))


def withholding(col: "Collection", ledger: "Ledger") -> bool:
    """A hidden drop whose art and real metadata have not been released yet: the one place this is decided."""
    return col.spec.chain.reveal is not None and not released(ledger)
