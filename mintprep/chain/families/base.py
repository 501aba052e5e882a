"""What every family answers, and the reading they share (minted ids from Transfer events, owner, simulation)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from web3 import Web3
from web3.contract import Contract

from mintprep.chain.reads import checked_token_id, checked_token_uri, transfer_logs
from mintprep.chain.rpc import RPC_FAILURES

ZERO_ADDRESS = "0x" + "00" * 20
ZERO_TOPIC = "0x" + "00" * 32

# The ABI fragments families read or call: no family needs a contract's full ABI.
def _view(name: str, inputs: tuple[str, ...] = (), output: str = "string") -> dict[str, Any]:
    return {"type": "function", "name": name, "stateMutability": "view",
            "inputs": [{"name": f"a{i}", "type": t} for i, t in enumerate(inputs)],
            "outputs": [{"name": "", "type": output}]}


def _call(name: str, inputs: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "function", "name": name, "stateMutability": "nonpayable",
            "inputs": [{"name": f"a{i}", "type": t} for i, t in enumerate(inputs)], "outputs": []}


ABI = [
    _view("supportsInterface", ("bytes4",), "bool"), _view("owner", (), "address"),
    _view("tokenURI", ("uint256",)), _view("baseURI"), _view("baseExtension"), _view("revealed", (), "bool"),
    _view("notRevealedUri"), _view("totalSupply", (), "uint256"), _view("tokenByIndex", ("uint256",), "uint256"),
    _view("phaseCount", (), "uint256"), _view("totalMinted", (), "uint256"),
    _call("setBaseURI", ("string",)), _call("setTokenURI", ("uint256", "string")),
]
# MintprepDrop's setter takes the contractURI too: a name may not be overloaded in one web3 contract object.
DROP_SETTER_ABI = [_call("setBaseURI", ("string", "string"))]


@dataclass(frozen=True)
class ContractCall:
    """One transaction a repair needs: what a Safe or hardware wallet is given under --print-tx."""

    to: str
    data: str
    function: str  # its signature, e.g. setBaseURI(string)
    args: tuple[Any, ...]
    value: int = 0
    bound: Any = field(default=None, compare=False, repr=False)  # the web3 function, to send it with a key

    def to_json(self) -> dict[str, Any]:
        return {"to": self.to, "value": self.value, "data": self.data, "function": self.function,
                "args": list(self.args)}


@dataclass
class Family:
    """A contract of one shape. Subclasses say how URIs are formed and set; reading is shared."""

    w3: Web3
    contract: Contract
    name = "erc721"
    token_suffix: str | None = ".json"  # file name of id N in the metadata directory: f"{N}{suffix}"; None: per-token

    @property
    def address(self) -> str:
        return self.contract.address

    def owner(self) -> str | None:
        try:
            return str(self.contract.functions.owner().call())
        except RPC_FAILURES:
            return None

    def minted_ids(self) -> list[int]:
        """Ids that exist now: minted (Transfer from the zero address) and not burned (Transfer to it)."""
        minted: set[int] = set()
        for log in self._transfer_logs():
            if len(log["topics"]) != 4:
                continue  # an ERC-20-style Transfer (id not indexed): not an ERC-721 mint
            token_id = checked_token_id(int.from_bytes(bytes(log["topics"][3]), "big"),
                                        f"{self.address} (Transfer in block {log.get('blockNumber')})")
            if bytes(log["topics"][1]).hex() == ZERO_TOPIC[2:]:
                minted.add(token_id)
            if bytes(log["topics"][2]).hex() == ZERO_TOPIC[2:]:
                minted.discard(token_id)
        return sorted(minted)

    def _transfer_logs(self) -> list[Any]:
        """Every Transfer log since the contract's creation (mintprep.chain.reads: ranges, filter, deadline)."""
        head = self.w3.eth.block_number
        return transfer_logs(self.w3, self.address, deployment_block(self.w3, self.address, head), head)

    def token_uri(self, token_id: int) -> str:
        return checked_token_uri(token_id, self.contract.functions.tokenURI(token_id).call())

    def base_uri(self, minted: list[int]) -> str | None:
        """The base every id's URI is formed from (read, or derived from a minted token's URI); None when unknown."""
        for token_id in minted[:1]:
            uri, tail = self.token_uri(token_id), f"{token_id}{self.token_suffix or ''}"
            return uri[: -len(tail)] if self.token_suffix is not None and uri.endswith(tail) else None
        return None

    def uri_of(self, base: str | None, token_id: int) -> str | None:
        """What tokenURI(id) will say once `token_id` is minted under `base` (None: no pattern)."""
        if base is None or self.token_suffix is None:
            return None
        return f"{base}{token_id}{self.token_suffix}"

    def first_id(self, minted: list[int]) -> int:
        return 1

    def base_uri_calls(self, base_uri: str, contract_uri: str) -> list[ContractCall] | None:
        """The calls that point every token at `base_uri`; None when this contract has no known setter."""
        return self._if_callable(self.contract.functions.setBaseURI(base_uri), "setBaseURI(string)", (base_uri,))

    def token_uri_calls(self, uris: dict[int, str]) -> list[ContractCall] | None:
        """Per-token URI updates; None when this family points tokens at a base URI instead."""
        return None

    def _if_callable(self, function: Any, signature: str, args: tuple[Any, ...]) -> list[ContractCall] | None:
        """The call, when the owner could make it (simulated with eth_call from the owner); else None (no owner
        to make it either: renounced, or not an Ownable contract)."""
        owner = self.owner()
        if owner is None or int(owner, 16) == 0:
            return None
        try:
            function.call({"from": owner})
        except RPC_FAILURES:
            return None
        return [ContractCall(self.address, function._encode_transaction_data(), signature, args, bound=function)]


def deployment_block(w3: Web3, address: str, head: int) -> int:
    """The block the contract was created in (binary search on eth_getCode), or 0 when the node keeps no
    history that far back: logs are then read from genesis, still in bounded ranges."""
    low, high = 0, head
    try:
        while low < high:
            middle = (low + high) // 2
            if w3.eth.get_code(address, block_identifier=middle):
                high = middle
            else:
                low = middle + 1
    except RPC_FAILURES:
        return 0
    return low
