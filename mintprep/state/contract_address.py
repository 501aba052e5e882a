"""Which contract a collection has: the one rule every command asks (kept free of web3, which takes seconds to load).

The latest contract the ledger recorded on that network (deployed by `mintprep contract deploy`, or adopted by
`mintprep import --from 0x…`), so collection.yaml needs no edit after a deploy; `chain.contract` may name it too,
and naming another address is an error (which one collectors see would otherwise depend on the command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.base import UserError

if TYPE_CHECKING:
    from mintprep.net import Network
    from mintprep.collection import Collection
    from mintprep.state.ledger import Ledger


def find_contract(col: "Collection", ledger: "Ledger | None", chain_id: int | None = None) -> str | None:
    """The collection's contract address on chain `chain_id` (default: the configured network's), or None."""
    chain_id = col.spec.chain.endpoint()[0].chain_id if chain_id is None else chain_id
    deployment = ledger.latest_deployment(chain_id) if ledger else None
    named = col.spec.chain.contract
    if named and deployment and named.lower() != deployment.address.lower():
        raise UserError(f"{col.path}: chain.contract is {named} but the ledger recorded {deployment.address} on "
                        f"chain {chain_id} (deployed or imported by mintprep); remove chain.contract or set it to "
                        "the ledger's address", field="chain.contract")
    if named:
        return named
    return deployment.address if deployment else None


def deployed_address(col: "Collection", ledger: "Ledger | None", network: "Network") -> str:
    """`find_contract`, or a UserError saying how to get a contract."""
    address = find_contract(col, ledger, network.chain_id)
    if address is None:
        raise UserError(
            f"{col.path}: no contract on {network.name}: set chain.contract "
            "(`mintprep contract deploy` prints the address)"
        )
    return address
