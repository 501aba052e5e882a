"""The base URI step: the contract pointed at the ledger's current metadata root through its own setter (the calls
and the gate every base-URI change passes: mintprep.chain.base_uri `collection_base_uri_update`), each transaction
recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth_account.signers.local import LocalAccount

from mintprep.chain import BaseUriUpdate, collection_base_uri_update, send_collection_base_uri

if TYPE_CHECKING:
    from mintprep.state import Workspace


def point_contract_at_current_root(ws: "Workspace", signer: LocalAccount, planned: BaseUriUpdate | None = None, *,
                                   include_minted: bool = False) -> BaseUriUpdate:
    """Send `planned` (by default: every call that moves the contract to the current root, through the gate) and
    record each transaction."""
    if planned is None:
        planned = collection_base_uri_update(ws, include_minted=include_minted)
    sent = send_collection_base_uri(ws, signer, planned)
    for call, tx_hash in zip(sent.calls, sent.tx_hashes):
        detail = call.ledger_detail()
        if call.role != "set_token_uri":
            detail["contract_uri"] = sent.contract_uri
        ws.ledger.record_chain_tx(call.ledger_kind, sent.chain_id, call.to, tx_hash, detail)
    return sent
