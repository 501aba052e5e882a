"""A small collection made elsewhere (tests.support.foreign), deployed with each contract family on anvil.

The contracts are the test contracts in contracts/test/families (compiled by contracts/compile.js with the
project's solc-js into tests/chain/artifacts): HashLips' SimpleNft.sol, the ERC721A shape (npm erc721a),
OpenZeppelin ERC721URIStorage; MintprepDrop is the committed artifact."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from web3.contract import Contract

from tests.support.foreign import Foreign, make_foreign_collection
from tests.support.anvil import Chain, DropParams, deploy_artifact, deploy_test_drop

SIZE = 6
PRICE_WEI = 630_000_000_000_000


@dataclass(frozen=True)
class Shape:
    """One family's test case: ids, which are broken (one minted, one not), how many are minted."""

    family: str
    first_id: int
    suffix: str
    broken: dict[int, str]
    minted: int  # the first `minted` ids are minted
    size: int = SIZE

    @property
    def ids(self) -> list[int]:
        return list(range(self.first_id, self.first_id + self.size))

    @property
    def minted_ids(self) -> list[int]:
        return self.ids[: self.minted]


SHAPES = {
    "hashlips-simple": Shape("hashlips-simple", 1, ".json", {2: "black", 5: "grey"}, minted=3),
    "erc721a": Shape("erc721a", 0, "", {1: "black", 4: "noise"}, minted=3),
    # Per-token URIs exist only for minted tokens: every token of the collection is minted.
    "uri-storage": Shape("uri-storage", 1, ".json", {2: "black", 4: "grey"}, minted=4, size=4),
    "mintprep-drop": Shape("mintprep-drop", 1, ".json", {2: "black", 5: "grey"}, minted=3),
}


def deploy_shape(shape: Shape, chain: Chain, node: Path) -> tuple[Foreign, Contract]:
    """The foreign collection on its own IPFS node, its contract deployed by the owner, `shape.minted` minted
    by a collector (accounts[1])."""
    foreign = make_foreign_collection(node, shape.size, shape.broken, first_id=shape.first_id, suffix=shape.suffix)
    base = f"ipfs://{foreign.metadata_root}/"
    owner, collector = chain.owner.address, chain.accounts[1].address
    if shape.family == "hashlips-simple":
        contract = deploy_artifact(chain, "SimpleNft", "HashLips Shape", "HLS", base, "", shape.size)
        contract.functions.reveal().transact({"from": owner})  # SimpleNft serves notRevealedUri until then
        cost = contract.functions.cost().call()
        contract.functions.mint(shape.minted).transact({"from": collector, "value": shape.minted * cost})
    elif shape.family == "erc721a":
        contract = deploy_artifact(chain, "AzukiStyle", base)
        contract.functions.mint(shape.minted).transact({"from": collector})
    elif shape.family == "uri-storage":
        contract = deploy_artifact(chain, "PerTokenURIs")
        for token_id in shape.minted_ids:
            contract.functions.mint(collector, f"ipfs://{foreign.metadata_cids[token_id]}").transact({"from": owner})
    else:
        contract = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=shape.size, base_uri=base)).contract
        contract.functions.mint(0, shape.minted, []).transact({"from": collector, "value": shape.minted * PRICE_WEI})
    return foreign, contract
