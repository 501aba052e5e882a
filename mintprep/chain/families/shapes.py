"""The four shapes: how each forms and sets its token URIs (reading is shared, in base.py)."""

from __future__ import annotations

from dataclasses import dataclass

from mintprep.chain.reads import enumerated_ids
from mintprep.chain.families.base import DROP_SETTER_ABI, ContractCall, Family


@dataclass
class MintprepDrop(Family):
    """Ours: `baseURI()` readable, ids from 1, setBaseURI(base, contractURI)."""

    name = "mintprep-drop"

    def base_uri(self, minted: list[int]) -> str | None:
        return str(self.contract.functions.baseURI().call())

    def base_uri_calls(self, base_uri: str, contract_uri: str) -> list[ContractCall] | None:
        setter = self.w3.eth.contract(address=self.address, abi=DROP_SETTER_ABI).functions.setBaseURI
        return self._if_callable(setter(base_uri, contract_uri), "setBaseURI(string,string)", (base_uri, contract_uri))


@dataclass
class HashLipsTutorial(Family):
    """ERC721Enumerable, ids from 1, no base URI getter, tokenURI = base + id + baseExtension, setBaseURI(string);
    before `reveal()` every tokenURI is `notRevealedUri` and the base cannot be seen."""

    name = "hashlips"

    def minted_ids(self) -> list[int]:
        functions = self.contract.functions
        return enumerated_ids(functions.totalSupply().call(), super().minted_ids(),
                              lambda index: functions.tokenByIndex(index).call(), self.address)

    def revealed(self) -> bool:
        return bool(self.contract.functions.revealed().call())

    def base_uri(self, minted: list[int]) -> str | None:
        return super().base_uri(minted) if self.revealed() else None


@dataclass
class ERC721AShape(Family):
    """Ids from `_startTokenId()` (not public; 0 by default, so the first minted id, else 0), tokenURI = base + id."""

    name = "erc721a"

    def first_id(self, minted: list[int]) -> int:
        return min(minted) if minted else 0


@dataclass
class PerTokenURIs(Family):
    """OpenZeppelin ERC721URIStorage: each token its own URI (ipfs://<cid>), set by setTokenURI(id, uri)."""

    name = "uri-storage"
    token_suffix: str | None = None

    def base_uri(self, minted: list[int]) -> str | None:
        return None

    def base_uri_calls(self, base_uri: str, contract_uri: str) -> list[ContractCall] | None:
        return None

    def token_uri_calls(self, uris: dict[int, str]) -> list[ContractCall] | None:
        calls: list[ContractCall] = []
        for token_id, uri in sorted(uris.items()):
            one = self._if_callable(self.contract.functions.setTokenURI(token_id, uri), "setTokenURI(uint256,string)",
                                    (token_id, uri))
            if one is None:
                return None
            calls += one
        return calls
