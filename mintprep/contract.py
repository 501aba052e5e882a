"""Which contract a collection has: the one rule every command asks (kept free of web3, which takes seconds to load).

`chain.contract` in collection.yaml wins; else the latest contract the ledger recorded on that network
(deployed by `mintprep contract deploy`, or adopted by `mintprep import --from 0x…`); else none yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mintprep.chain.networks import Network
    from mintprep.config import Collection
    from mintprep.ledger import Ledger


def find_contract(col: "Collection", ledger: "Ledger | None", network: "Network | None" = None) -> str | None:
    """The collection's contract address on `network` (default: the configured one), or None."""
    if col.spec.chain.contract:
        return col.spec.chain.contract
    network = network or col.spec.chain.endpoint()[0]
    deployment = ledger.latest_deployment(network.chain_id) if ledger else None
    return deployment.address if deployment else None
