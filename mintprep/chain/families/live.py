"""What collectors see: a contract's family, minted ids and the URI each token id resolves through, read once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mintprep.base import UserError
from mintprep.state import deployed_address
from mintprep.chain.families.base import Family
from mintprep.chain.families.detect import detect_family
from mintprep.chain.rpc import RPC_FAILURES, connect, rpc_failure_reason
from mintprep.net import redact_url

if TYPE_CHECKING:
    from mintprep.state import Workspace


@dataclass
class LiveState:
    family: Family
    minted: list[int]
    base_uri: str | None  # None: per-token URIs, or a base the contract does not show (unrevealed)
    token_uris: dict[int, str] = field(default_factory=dict)  # minted id -> tokenURI(id)

    def uri(self, token_id: int) -> str | None:
        """tokenURI(id) for a minted id; for one still to mint, what it will say (None: no pattern to follow)."""
        if token_id in self.token_uris:
            return self.token_uris[token_id]
        return self.family.uri_of(self.base_uri or None, token_id)  # an empty base: none set yet

    def shared_uris(self) -> set[str]:
        """URIs several minted tokens share: an unrevealed drop's placeholder, not any token's own document."""
        return {uri for uri, count in Counter(self.token_uris.values()).items() if count > 1}


def read_live(ws: "Workspace") -> LiveState:
    """The collection's contract as the chain shows it now; UserError naming the RPC when it cannot be read."""
    network, url = ws.spec.chain.endpoint()
    address = deployed_address(ws.col, ws.ledger, network)
    w3 = connect(url)
    try:
        family = detect_family(w3, address)
        minted = family.minted_ids()
        return LiveState(family, minted, family.base_uri(minted), {t: family.token_uri(t) for t in minted})
    except RPC_FAILURES as exc:
        raise UserError(f"cannot read contract {address} through {redact_url(url)}: {rpc_failure_reason(exc)}") from None
