"""Sales a family keeps in one struct, read and rewritten through the signature its profile binds to `sale_config`:
Zora's `salesConfig()` (npm @zoralabs/nft-drop-contracts ERC721Drop) and thirdweb's active claim condition
(`getClaimConditionById(uint256)` of npm @thirdweb-dev/contracts DropERC721, found by `getActiveClaimConditionId()`).

Both are read into `SaleTerms` (price in wei and its currency, per-wallet cap, window), and `call_setting` gives the
owner's one transaction that makes the struct say what collection.yaml says (Zora's `setSaleConfiguration`,
thirdweb's `setClaimConditions` with every condition kept and only the active one changed), for `check --print-tx`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from web3 import Web3
from web3.contract import Contract
from web3.exceptions import BadFunctionCallOutput, ContractLogicError

from mintprep.chain.profile.contract import ContractCall, ProfiledContract
from mintprep.chain.rpc import RPC_FAILURES

NATIVE = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"  # thirdweb's "paid in the chain's own coin"
CONDITION = "(uint256,uint256,uint256,uint256,bytes32,uint256,address,string)"
ZORA_CONFIG = ("uint104", "uint32", "uint64", "uint64", "uint64", "uint64", "bytes32")
# The reads and setters, by the signature the family's profile binds to sale_config.
ZORA = "salesConfig()"
THIRDWEB = "getClaimConditionById(uint256)"
NOT_ANSWERED = (ContractLogicError, BadFunctionCallOutput)


@dataclass(frozen=True)
class SaleTerms:
    price: int  # wei (or the currency's smallest unit) per token
    currency: str | None  # None: the chain's own coin
    per_wallet: int | None  # None: no cap
    start: int
    end: int  # exclusive; 2**64 - 1: never ends
    raw: tuple[Any, ...]  # the struct as read, rewritten by `call_setting`
    conditions: tuple[tuple[Any, ...], ...] = ()  # thirdweb: every condition, in order
    active: int = 0  # thirdweb: the active condition's place among them


def sale_terms(contract: ProfiledContract) -> SaleTerms | None:
    """The family's sale as its struct says; None when it has no struct mintprep reads (or no active condition)."""
    signature = contract.profile.roles.get("sale_config")
    try:
        if signature == ZORA:
            raw = tuple(_bound(contract, _zora_abi()).functions.salesConfig().call())
            return SaleTerms(raw[0], None, raw[1] or None, raw[2], raw[3], raw)
        if signature == THIRDWEB:
            return _thirdweb_terms(_bound(contract, _thirdweb_abi()))
    except NOT_ANSWERED:  # a revert or an answer of another shape; an unreachable node is the caller's to report
        return None
    return None


def _thirdweb_terms(drop: Contract) -> SaleTerms | None:
    """The active condition; before the first one starts (no active condition: the call reverts), that one."""
    start_id, count = drop.functions.claimCondition().call()
    if count == 0:
        return None
    try:
        active = drop.functions.getActiveClaimConditionId().call()
    except NOT_ANSWERED:
        active = start_id
    conditions = tuple(tuple(drop.functions.getClaimConditionById(start_id + i).call()) for i in range(count))
    raw = conditions[active - start_id]
    limit = raw[3] if raw[3] < 2**256 - 1 else None
    currency = None if Web3.to_checksum_address(raw[6]) == NATIVE else Web3.to_checksum_address(raw[6])
    end = conditions[active - start_id + 1][0] if active - start_id + 1 < count else 2**64 - 1
    return SaleTerms(raw[5], currency, limit or None, raw[0], end, raw, conditions, active - start_id)


def call_setting(contract: ProfiledContract, terms: SaleTerms, *, price: int, per_wallet: int | None, start: int,
                 end: int) -> ContractCall | None:
    """The owner's one call that makes the sale say these values (simulated from the owner); None when it would
    revert (not the owner's to make now)."""
    if contract.profile.roles.get("sale_config") == ZORA:
        bound = _bound(contract, _zora_abi())
        args: tuple[Any, ...] = (price, per_wallet or 0, start, end, *terms.raw[4:])
        function, signature = bound.functions.setSaleConfiguration(*args), "setSaleConfiguration" + \
            f"({','.join(ZORA_CONFIG)})"
    else:
        bound = _bound(contract, _thirdweb_abi())
        changed = list(terms.raw)
        changed[0], changed[3], changed[5] = start, per_wallet if per_wallet is not None else 2**256 - 1, price
        conditions = [list(c) for c in terms.conditions]
        conditions[terms.active] = changed
        args = (conditions, False)
        function, signature = bound.functions.setClaimConditions(*args), f"setClaimConditions({CONDITION}[],bool)"
    owner = contract.owner()
    try:
        function.call({"from": owner})
    except RPC_FAILURES:
        return None
    return ContractCall(function.address, function._encode_transaction_data(), signature, args, "sale_config",
                        bound=function)


def _bound(contract: ProfiledContract, abi: list[dict[str, Any]]) -> Contract:
    return contract.w3.eth.contract(address=Web3.to_checksum_address(contract.address), abi=abi)


def _function(name: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]],
              mutability: str = "view") -> dict[str, Any]:
    return {"type": "function", "name": name, "inputs": inputs, "outputs": outputs, "stateMutability": mutability}


def _zora_abi() -> list[dict[str, Any]]:
    config = [{"name": f"a{i}", "type": kind} for i, kind in enumerate(ZORA_CONFIG)]
    return [_function("salesConfig", [], config), _function("setSaleConfiguration", config, [], "nonpayable")]


def _thirdweb_abi() -> list[dict[str, Any]]:
    kinds = CONDITION[1:-1].split(",")
    condition = {"name": "c", "type": "tuple", "components": [{"name": f"f{i}", "type": k} for i, k in
                                                                enumerate(kinds)]}
    number = {"name": "n", "type": "uint256"}
    return [_function("claimCondition", [], [number, dict(number, name="m")]),
            _function("getActiveClaimConditionId", [], [number]),
            _function("getClaimConditionById", [number], [condition]),
            _function("setClaimConditions", [dict(condition, type="tuple[]"), {"name": "r", "type": "bool"}], [],
                      "nonpayable")]
