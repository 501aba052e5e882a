"""The chain steps of a collection: deploy, set the base URI (the reveal's driver is mintprep.commands.reveal). mintprep.chain computes and sends each
transaction; the ledger rows are written here, each at the point where a crash must find it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth_account.signers.local import LocalAccount

from mintprep.chain.deploy import (Deployed, collection_drop_config, create_address, deploy_drop, deploy_target,
                                   interrupted_deploy)
from mintprep.stages.base_uri import point_contract_at_current_root
from mintprep.stages.withheld import pin_placeholders

if TYPE_CHECKING:
    from mintprep.state.workspace import Workspace

# point_contract_at_current_root: `contract set-base-uri`, the base URI step (stages.base_uri) repair runs too
__all__ = ["deploy_contract", "point_contract_at_current_root"]


def deploy_contract(ws: "Workspace", signer: LocalAccount, *, network_name: str | None = None,
                    rpc_url: str | None = None, again: bool = False, allow_ended_phases: bool = False) -> Deployed:
    """Deploy the collection's drop and record it; adopt instead a deploy a killed run sent."""
    ledger = ws.ledger
    target = deploy_target(ws.col, ledger, network_name, rpc_url, again, allow_ended_phases)
    deployed = None if again else interrupted_deploy(target, ledger)
    if deployed is None:
        placeholders = pin_placeholders(ws) if ws.spec.chain.reveal else None
        config = collection_drop_config(ws, signer, target.chain_id, placeholders)
        nonce = target.w3.eth.get_transaction_count(signer.address, "pending")
        # Written before sending: a crash while waiting for the receipt must not lead to a second contract.
        ledger.record_chain_tx("deploy-sent", target.chain_id, create_address(signer.address, nonce), "",
                               {"deployer": signer.address, "nonce": nonce, "network": target.network.name})
        deployed = deploy_drop(target.w3, signer, config)
    ledger.record_deployment(target.network.name, deployed.chain_id, deployed.address, deployed.tx_hash,
                             deployed.deployer)
    return deployed
