"""Pointing the drop at newly pinned metadata: setBaseURI(base, contractURI), sent here or printed for a multisig.

Both URIs move together: collection.json (ERC-7572 contractURI) lives in the same metadata directory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from eth_account.signers.local import LocalAccount
from web3 import Web3

from mintprep.chain.artifact import load_artifact
from mintprep.chain.rpc import connect, require_chain
from mintprep.chain.address import deployed_address
from mintprep.chain.txs import send_call
from mintprep.base.errors import UserError
from mintprep.collection.manifest import base_uri_for, contract_uri_for
from mintprep.collection.published import check_base_uri_change

if TYPE_CHECKING:
    from mintprep.state.workspace import Workspace


@dataclass(frozen=True)
class BaseUriUpdate:
    """The call that sets the base URI: what a multisig or hardware wallet needs to send it."""

    chain_id: int
    to: str
    data: str
    value: int
    base_uri: str
    contract_uri: str
    tx_hash: str | None = None  # set once mintprep itself sent it

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def base_uri_update(chain_id: int, address: str, base_uri: str, contract_uri: str) -> BaseUriUpdate:
    drop = Web3().eth.contract(address=Web3.to_checksum_address(address), abi=load_artifact().abi)
    data = drop.encode_abi("setBaseURI", [base_uri, contract_uri])
    return BaseUriUpdate(chain_id, drop.address, data, 0, base_uri, contract_uri)


def set_base_uri(w3: Web3, signer: LocalAccount, address: str, base_uri: str, contract_uri: str) -> str:
    """Send setBaseURI and return the transaction hash (simulated first: a non-owner key fails before sending)."""
    drop = w3.eth.contract(address=address, abi=load_artifact().abi)
    receipt = send_call(w3, signer, drop.functions.setBaseURI(base_uri, contract_uri), "setBaseURI")
    return receipt["transactionHash"].to_0x_hex()


def collection_base_uri_update(ws: "Workspace") -> tuple[BaseUriUpdate, str]:
    """The setBaseURI call for the ledger's current metadata root, and the RPC URL to send it through.

    Every base-URI change mintprep makes or prints passes `check_base_uri_change` here (mintprep.collection.published)."""
    col, ledger = ws.col, ws.ledger
    network, url = col.spec.chain.endpoint()
    manifest = ledger.current_manifest()
    if manifest is None:
        raise UserError(f"{col.path}: no metadata pinned yet; run `mintprep run` before setting the base URI")
    if col.spec.chain.reveal is not None:
        raise UserError(f"{col.path}: chain.reveal is set: the base URI is set by `mintprep reveal` (setting it "
                        "earlier would show the art before the reveal)")
    address = deployed_address(col, ledger, network)
    root = manifest.metadata_root
    update = base_uri_update(network.chain_id, address, base_uri_for(root), contract_uri_for(root))
    drop = connect(url).eth.contract(address=update.to, abi=load_artifact().abi)
    current = drop.functions.baseURI().call()
    if current != update.base_uri:
        minted = range(1, drop.functions.totalMinted().call() + 1)
        check_base_uri_change(ledger, current, root, minted, ws.backend.fetch_block)
    return update, url


def send_collection_base_uri(ws: "Workspace", signer: LocalAccount) -> BaseUriUpdate:
    """Point the collection's contract at the current metadata root; the command driver records the transaction."""
    planned, url = collection_base_uri_update(ws)
    w3 = connect(url)
    require_chain(w3, ws.spec.chain.endpoint()[0])
    return replace(planned, tx_hash=set_base_uri(w3, signer, planned.to, planned.base_uri, planned.contract_uri))
