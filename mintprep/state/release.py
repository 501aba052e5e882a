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


def released_among(tx_kinds: frozenset[str]) -> bool:
    """`released`, from the kinds of the ledger's chain transactions (Ledger.status_read)."""
    return RELEASED_KIND in tx_kinds


def hidden_drop(col: "Collection") -> bool:
    """A drop revealed later: its art and real metadata are withheld until `mintprep reveal`."""
    return col.spec.chain.reveal is not None


def withholding(col: "Collection", ledger: "Ledger") -> bool:
    """A hidden drop whose art and real metadata have not been released yet."""
    return withholds(hidden_drop(col), released(ledger))


def withholds(hidden: bool, released: bool) -> bool:
    """`withholding`, for a drop known to be hidden or not and released or not (`status`, from what it kept of the
    collection file and its one read of the ledger): the one place this is decided."""
    return hidden and not released
