"""The chain steps of a collection: deploy, set the base URI (the reveal's driver is mintprep.commands.reveal). mintprep.chain computes and sends each
transaction; the ledger rows are written here, each at the point where a crash must find it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from eth_account.signers.local import LocalAccount

from mintprep.chain import (Deployed, collection_drop_config, create_address, deploy_drop, deploy_target,
                            interrupted_deploy)
from mintprep.stages import pin_placeholders, point_contract_at_current_root
from mintprep.state import Workspace

if TYPE_CHECKING:
    from mintprep.chain import BaseUriUpdate, VerifyOutcome
    from mintprep.collection import Collection

# point_contract_at_current_root: `contract set-base-uri`, the base URI step (stages.base_uri) repair runs too
__all__ = ["base_uri_update", "deploy", "deploy_contract", "point_contract_at_current_root", "verify_contract"]


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


def deploy(col: "Collection", keystore: Path | None, ask_password: Callable[[], str] | None, *,
           network_name: str | None = None, rpc_url: str | None = None, again: bool = False,
           allow_ended_phases: bool = False) -> Deployed:
    """`deploy_contract` with the key the user gave (`ask_password`: the keystore's password when the environment
    has none; None refuses)."""
    from mintprep.chain import load_signer

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return deploy_contract(ws, signer, network_name=network_name, rpc_url=rpc_url, again=again,
                               allow_ended_phases=allow_ended_phases)


def base_uri_update(col: "Collection", keystore: Path | None, ask_password: Callable[[], str] | None, *,
                    print_only: bool = False, include_minted: bool = False) -> BaseUriUpdate:
    """Point the contract at the ledger's current metadata root through its family's own setter and record it;
    with `print_only`, the calls unsent (no key needed, the ledger read only)."""
    if print_only:
        from mintprep.chain import collection_base_uri_update

        with Workspace.open(col, readonly=True) as ws:
            return collection_base_uri_update(ws, include_minted=include_minted)
    from mintprep.chain import load_signer

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return point_contract_at_current_root(ws, signer, include_minted=include_minted)


def verify_contract(col: "Collection", services: tuple[str, ...]) -> "list[VerifyOutcome]":
    """Submit the deployed drop's sources to each of `services` and wait for their verdicts."""
    from mintprep.chain import verify_collection

    with Workspace.open(col, readonly=True) as ws:
        return verify_collection(col, ws.ledger, services)
