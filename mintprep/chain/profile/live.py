"""What collectors see, read once per command: the contract's profile, minted ids and the URI each token id
resolves through. The Workspace holds it (`ws.chain_live`); only the minted-token gate right before a transaction
reads again (`fresh=True`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from web3 import Web3

from mintprep.base.errors import UserError
from mintprep.chain.address import deployed_address
from mintprep.chain.profile.contract import ProfiledContract
from mintprep.chain.profile.resolve import resolve_profile
from mintprep.chain.rpc import RPC_FAILURES, connect, require_chain, rpc_failure_reason
from mintprep.net.urls import redact_url

if TYPE_CHECKING:
    from mintprep.collection.config import Collection
    from mintprep.state.workspace import Workspace


@dataclass
class LiveState:
    family: ProfiledContract
    minted: list[int]  # sold: minted and held by a wallet other than the collection's owner
    base_uri: str | None  # None: per-token URIs, a base the contract does not show (unrevealed), or batches
    token_uris: dict[int, str] = field(default_factory=dict)  # every existing id (sold or not) -> tokenURI(id)
    chain_id: int = 0
    stale: bool = False  # a transaction changed what it says: the next read_live reads again
    held_by_owner: list[int] = field(default_factory=list)  # minted to the owner and still held: not sold
    owner: str | None = None

    def sold_rule(self) -> dict[str, object]:
        """Which tokens counted as sold and why (what audit and repair reports carry)."""
        return {"sold": self.minted, "held_by_owner": self.held_by_owner, "owner": self.owner,
                "rule": "sold = minted and held by a wallet other than the owner; a token the owner holds is "
                        "repaired like an unminted one"}


    def uri(self, token_id: int) -> str | None:
        """tokenURI(id) for a minted id; for one still to mint, what it will say (None: no pattern to follow)."""
        if token_id in self.token_uris:
            return self.token_uris[token_id]
        return self.family.uri_of(self.base_uri or None, token_id)  # an empty base: none set yet

    def shared_uris(self) -> set[str]:
        """URIs several minted tokens share: an unrevealed drop's placeholder, not any token's own document."""
        return {uri for uri, count in Counter(self.token_uris.values()).items() if count > 1}


def open_contract(col: "Collection", w3: Web3, address: str, chain_id: int) -> ProfiledContract:
    """The contract at `address` with its profile (collection.yaml's declaration first; see chain.profile.resolve)."""
    checksummed = Web3.to_checksum_address(address)
    return ProfiledContract(w3, checksummed, resolve_profile(w3, checksummed, col.spec.chain, col.base_dir, chain_id))


def read_live(ws: "Workspace", *, fresh: bool = False) -> LiveState:
    """The collection's contract as the chain shows it, read once per workspace (again with `fresh`); UserError
    naming the RPC when it cannot be read, or when the node is not on `chain.network`."""
    previous = ws.chain_live
    if previous is not None and not fresh and not previous.stale:
        return previous
    network, url = ws.spec.chain.endpoint()
    address = deployed_address(ws.col, ws.ledger, network)
    try:
        if previous is None:
            w3 = connect(url)
            chain_id = require_chain(w3, network)
            family = open_contract(ws.col, w3, address, chain_id)
        elif fresh:  # the minted-token gate: the same contract and profile, ids and holders read again
            family, chain_id = ProfiledContract(previous.family.w3, previous.family.address,
                                                previous.family.profile), previous.chain_id
        else:  # after this command's own setter: only the URIs changed
            family, chain_id = previous.family.after_uri_change(), previous.chain_id
        minted = family.minted_ids()
        sold, owner = family.sold_ids(minted)
        base = family.base_uri(minted)
        uris = family.formed_uris(minted, base)
        live = LiveState(family, sold, base, uris if uris is not None else {t: family.token_uri(t) for t in minted},
                         chain_id, held_by_owner=sorted(set(minted) - set(sold)), owner=owner)
    except RPC_FAILURES as exc:
        raise UserError(f"cannot read contract {address} through {redact_url(url)}: {rpc_failure_reason(exc)}") from None
    ws.chain_live = live
    return live
