"""Where a contract's functions are read from: the runtime code behind any proxy, and the verified-ABI services.

Proxies are followed to their implementation: an EIP-1167 clone names it in its 45 bytes of code; an EIP-1967
proxy keeps it in the implementation slot, or behind a beacon in the beacon slot. The services are the ones
`contract verify` submits to (chain.verify): Sourcify APIv2 `GET /v2/contract/{chainId}/{address}?fields=abi`,
Etherscan API V2 `module=contract&action=getabi&chainid=…`, Blockscout `GET /api/v2/smart-contracts/{address}`
(each answers the ABI of a verified contract; 404 or an empty answer: not verified)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from web3 import Web3

from mintprep.base.errors import MintprepError
from mintprep.chain.profile.signatures import abi_signatures, code_selectors
from mintprep.chain.rpc import RPC_FAILURES
from mintprep.net.http import RetryPolicy, json_object, send

IMPLEMENTATION_SLOT = 0x360894A13BA1A3210667C828492DB98DCA3E2076CC3735A920A3CA505D382BBC  # EIP-1967
BEACON_SLOT = 0xA3F0AD74E5423AEBFD80D3EF4346578335A9A72AEAEE59FF6CB3582B35133D50  # EIP-1967
CLONE_PREFIX = bytes.fromhex("363d3d373d3d3d363d73")  # EIP-1167, then the 20-byte implementation
CLONE_SUFFIX = bytes.fromhex("5af43d82803e903d91602b57fd5bf3")
BEACON_IMPLEMENTATION = "0x5c60da1b"  # implementation()
TOKEN_URI_SELECTOR = "c87b56dd"  # tokenURI(uint256): a contract without it in its own code may be a proxy
ABI_POLICY = RetryPolicy(attempts=2, timeout=20.0)

Functions = dict[str, str | None]  # selector -> signature (None: only the selector is known)


@dataclass(frozen=True)
class ContractCode:
    """The code that answers calls to `address`: its own, or a proxy's implementation's."""

    address: str
    code: bytes  # the implementation's runtime code when `implementation` is set
    implementation: str | None = None

    @property
    def functions(self) -> Functions:
        return code_selectors(self.code)


def read_code(w3: Web3, address: str) -> ContractCode:
    """The code behind `address`, following an EIP-1167 clone or an EIP-1967 proxy (implementation or beacon slot).
    Storage slots are read only when the contract's own code does not dispatch tokenURI itself."""
    code = bytes(w3.eth.get_code(address))
    implementation = clone_target(code)
    if implementation is None and code and TOKEN_URI_SELECTOR not in code_selectors(code):
        implementation = _slot_address(w3, address, IMPLEMENTATION_SLOT)
        if implementation is None and (beacon := _slot_address(w3, address, BEACON_SLOT)) is not None:
            answer = bytes(w3.eth.call({"to": beacon, "data": BEACON_IMPLEMENTATION}))
            implementation = _address_word(answer)
    if implementation is None:
        return ContractCode(address, code)
    return ContractCode(address, bytes(w3.eth.get_code(implementation)), implementation)


def clone_target(code: bytes) -> str | None:
    if len(code) == 45 and code.startswith(CLONE_PREFIX) and code.endswith(CLONE_SUFFIX):
        return Web3.to_checksum_address(code[10:30])
    return None


def _slot_address(w3: Web3, address: str, slot: int) -> str | None:
    return _address_word(bytes(w3.eth.get_storage_at(address, slot)))


def _address_word(word: bytes) -> str | None:
    if len(word) < 20 or not any(word[-20:]):
        return None
    return Web3.to_checksum_address(word[-20:])


# -- verified ABIs -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class AbiServices:
    """The verified-ABI services to ask, in order (a None URL or key: that service is not asked)."""

    sourcify_url: str | None
    etherscan_url: str | None = None
    etherscan_api_key: str | None = None
    blockscout_url: str | None = None
    policy: RetryPolicy = ABI_POLICY

    def lookups(self) -> list[tuple[str, Callable[[int, str], list[Any] | None]]]:
        found: list[tuple[str, Callable[[int, str], list[Any] | None]]] = []
        if self.sourcify_url:
            found.append(("sourcify", self._sourcify))
        if self.etherscan_url and self.etherscan_api_key:
            found.append(("etherscan", self._etherscan))
        if self.blockscout_url:
            found.append(("blockscout", self._blockscout))
        return found

    def _get(self, url: str, what: str, **params: str) -> dict[str, Any] | None:
        response = send("GET", url, params=params or None, policy=self.policy, ok_status=lambda s: s < 400 or s == 404)
        return None if response.status_code == 404 else json_object(response, what)

    def _sourcify(self, chain_id: int, address: str) -> list[Any] | None:
        answer = self._get(f"{self.sourcify_url.rstrip('/')}/v2/contract/{chain_id}/{address}", "Sourcify contract",
                           fields="abi")
        abi = (answer or {}).get("abi")
        return abi if isinstance(abi, list) else None

    def _etherscan(self, chain_id: int, address: str) -> list[Any] | None:
        answer = self._get(str(self.etherscan_url), "Etherscan getabi", chainid=str(chain_id), module="contract",
                           action="getabi", address=address, apikey=str(self.etherscan_api_key))
        if not answer or str(answer.get("status")) != "1" or not isinstance(answer.get("result"), str):
            return None  # "Contract source code not verified"
        try:
            abi = json.loads(answer["result"])
        except ValueError:
            return None
        return abi if isinstance(abi, list) else None

    def _blockscout(self, chain_id: int, address: str) -> list[Any] | None:
        answer = self._get(f"{str(self.blockscout_url).rstrip('/')}/api/v2/smart-contracts/{address}",
                           "Blockscout smart contract")
        abi = (answer or {}).get("abi")
        return abi if isinstance(abi, list) else None


def verified_functions(services: AbiServices, chain_id: int, code: ContractCode) -> tuple[str, Functions] | None:
    """The first service's verified ABI of the code's implementation (or the contract itself), as functions; None
    when no service has it. A service that fails is passed over: the runtime code is read next."""
    target = code.implementation or code.address
    for name, lookup in services.lookups():
        try:
            abi = lookup(chain_id, target)
        except (MintprepError, *RPC_FAILURES):
            continue
        if abi:
            return name, dict(abi_signatures(abi))
    return None
