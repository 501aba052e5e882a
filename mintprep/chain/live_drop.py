"""What collectors hold, read from the chain: the drop's base URI, its minted token ids and the metadata file each
one shows. The ledger never decides which tokens are minted; commands that change what is published ask here.

MintprepDrop mints sequential ids from 1 and never burns (see contracts/MintprepDrop.sol: `totalMinted`), so its
minted ids are 1..totalMinted; after a reveal token t shows file `metadataIdOf(t)`, computed here with the
contract's own formula (mintprep.chain.reveal.metadata_id) rather than one call per token. Any other contract is
read through its profile (mintprep.chain.profile: minted ids from its Transfer events, its base URI and the file
name its tokenURI forms).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mintprep.base.errors import UserError
from mintprep.chain.address import find_contract
from mintprep.collection.config import Collection
from mintprep.state.ledger import Ledger

if TYPE_CHECKING:
    from mintprep.state.workspace import Workspace


@dataclass(frozen=True)
class LiveDrop:
    """The drop as collectors see it now."""

    address: str
    base_uri: str
    minted: tuple[int, ...]  # token ids
    shown: dict[int, int] = field(default_factory=dict)  # minted token id -> the metadata file id it shows
    token_suffix: str = ".json"  # tokenURI = base + id + this: the file names in the metadata directory
    revealed: bool = True  # False: a hidden MintprepDrop before `reveal` (its tokens show the placeholder)

    @property
    def minted_files(self) -> list[int]:
        """The metadata file ids some minted token shows: the documents that must not change by accident."""
        return sorted(set(self.shown.values()))


def read_live_drop(col: Collection, ledger: Ledger | None, rpc_url: str | None = None) -> LiveDrop | None:
    """The collection's drop on its configured network, or None when it has no contract yet.

    UserError (exit 2) when the RPC cannot answer: a command that may change a sold token's document must not
    guess which tokens are sold."""
    if find_contract(col, ledger) is None:
        return None
    from mintprep.chain.artifact import load_artifact
    from mintprep.chain.address import deployed_address
    from mintprep.chain.profile.live import open_contract
    from mintprep.chain.reveal import metadata_id
    from mintprep.chain.rpc import RPC_FAILURES, connect, rpc_failure_reason
    from mintprep.net.urls import redact_url

    network, url = col.spec.chain.endpoint(rpc_url=rpc_url)
    address = deployed_address(col, ledger, network)
    try:
        w3 = connect(url)
        if not w3.eth.get_code(address):
            return LiveDrop(address, "", ())  # nothing deployed there (yet): nothing minted, nothing live
        family = open_contract(col, w3, address, network.chain_id)
        if family.name != "mintprep-drop":
            minted, _owner = family.sold_ids(family.minted_ids())  # an owner-held token is replaced like an unminted one
            return LiveDrop(address, family.base_uri(minted) or "", tuple(minted), {t: t for t in minted},
                            family.token_suffix or "")
        drop = w3.eth.contract(address=address, abi=load_artifact().abi).functions
        total = int(drop.totalMinted().call())
        base_uri = str(drop.baseURI().call())
        revealed = bool(drop.revealed().call())
        offset, size = (int(drop.startingOffset().call()), int(drop.maxSupply().call())) if revealed else (0, 0)
        # An empty placeholder: revealed from the start (MintprepDrop's `revealed` is set only by reveal()).
        hidden = not revealed and bool(str(drop.placeholderURI().call()))
    except RPC_FAILURES as exc:
        raise UserError(f"cannot read which tokens are minted from {address} at {redact_url(url)}: "
                        f"{rpc_failure_reason(exc)}") from None
    minted = tuple(range(1, total + 1))
    shown = {t: metadata_id(t, offset, size) if revealed else t for t in minted}
    return LiveDrop(address, base_uri, minted, shown, revealed=not hidden)


def live_drop(ws: "Workspace", *, fresh: bool = False) -> LiveDrop | None:
    """`read_live_drop` from the workspace's one read of the chain (mintprep.chain.profile.live.read_live; again
    with `fresh`, right before a transaction)."""
    if find_contract(ws.col, ws.ledger) is None:
        return None
    from mintprep.chain.profile.live import read_live
    from mintprep.chain.profile.resolve import NoContract
    from mintprep.chain.reveal import metadata_id

    try:
        live = read_live(ws, fresh=fresh)
    except NoContract:
        return LiveDrop(find_contract(ws.col, ws.ledger) or "", "", ())  # nothing deployed there (yet)
    family = live.family
    if family.name != "mintprep-drop":
        return LiveDrop(family.address, live.base_uri or "", tuple(live.minted), {t: t for t in live.minted},
                        family.token_suffix or "")
    minted = tuple(sorted(live.token_uris))  # every minted token (MintprepDrop's reveal shifts them all)
    revealed = bool(family.read("revealed"))
    offset, size = (int(family.read("reveal_offset")), int(family.read("max_supply"))) if revealed else (0, 0)
    hidden = not revealed and bool(str(family.read("hidden_uri")))
    shown = {t: metadata_id(t, offset, size) if revealed else t for t in minted}
    return LiveDrop(family.address, str(family.read("base_uri")), minted, shown, revealed=not hidden)
