"""The base URI step: the contract pointed at the ledger's current metadata root (through the gate every base-URI
change passes, mintprep.chain.base_uri `check_base_uri_change`) and the transaction recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth_account.signers.local import LocalAccount

from mintprep.chain import BaseUriUpdate, send_collection_base_uri

if TYPE_CHECKING:
    from mintprep.state import Workspace


def point_contract_at_current_root(ws: "Workspace", signer: LocalAccount, *,
                                   include_minted: bool = False) -> BaseUriUpdate:
    """Point the contract at the ledger's current metadata root (through `check_base_uri_change`) and record it."""
    sent = send_collection_base_uri(ws, signer, include_minted=include_minted)
    ws.ledger.record_chain_tx("set-base-uri", sent.chain_id, sent.to, str(sent.tx_hash),
                              {"base_uri": sent.base_uri, "contract_uri": sent.contract_uri})
    return sent
