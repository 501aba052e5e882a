"""Which family a contract is, from what the chain answers (ERC-165 and probed view functions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from web3 import Web3

from mintprep.base import UserError
from mintprep.chain.families.base import ABI, Family
from mintprep.chain.families.shapes import ERC721AShape, HashLipsTutorial, MintprepDrop, PerTokenURIs
from mintprep.chain.rpc import RPC_FAILURES

ERC721_ID = bytes.fromhex("80ac58cd")
ENUMERABLE_ID = bytes.fromhex("780e9d63")
ERC4906_ID = bytes.fromhex("49064906")  # metadata-update events: OpenZeppelin's ERC721URIStorage declares it


def detect_family(w3: Web3, address: str) -> Family:
    """The contract's family; UserError when there is no contract there or it is not an ERC-721."""
    contract = w3.eth.contract(address=Web3.to_checksum_address(address), abi=ABI)
    if not w3.eth.get_code(contract.address):
        raise UserError(f"{address}: no contract at that address on this chain")
    functions = contract.functions
    if not _answers(lambda: functions.supportsInterface(ERC721_ID).call()):
        raise UserError(f"{address}: not an ERC-721 contract (supportsInterface(0x80ac58cd) is not true)")
    if _answers(lambda: functions.phaseCount().call() is not None and functions.baseURI().call() is not None):
        return MintprepDrop(w3, contract)
    if _answers(lambda: functions.supportsInterface(ENUMERABLE_ID).call()) \
            and _answers(lambda: functions.baseExtension().call() is not None):
        return HashLipsTutorial(w3, contract, token_suffix=functions.baseExtension().call())
    if _answers(lambda: functions.supportsInterface(ERC4906_ID).call()):
        return PerTokenURIs(w3, contract)
    return ERC721AShape(w3, contract, token_suffix=_suffix(functions))


def _suffix(functions: Any) -> str:
    """What follows the id in tokenURI (".json" or nothing), read off the first of ids 0 and 1 that exists."""
    for token_id in (0, 1):
        try:
            uri = str(functions.tokenURI(token_id).call())
        except RPC_FAILURES:
            continue
        return ".json" if uri.endswith(f"{token_id}.json") else ""
    return ""  # nothing minted yet: the ERC721A default


def _answers(probe: Callable[[], Any]) -> bool:
    """Whether a view call returns a truthy answer (a revert or a missing function is a no)."""
    try:
        return bool(probe())
    except RPC_FAILURES:
        return False
