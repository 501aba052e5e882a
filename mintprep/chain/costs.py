"""What one mint costs a buyer besides the price: L2 execution gas plus, on Base, the L1 data fee.

The L1 fee is read from the OP-stack GasPriceOracle predeploy (`getL1Fee(bytes)` over the unsigned
transaction), never computed from constants: its scalars change with network upgrades. Nodes without the
predeploy (anvil, other chains) get no L1 line.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass
from typing import Any

import rlp
from eth_utils import to_bytes, to_checksum_address
from web3 import Web3
from web3.contract import Contract
from web3.exceptions import ContractCustomError

from mintprep.chain.rpc import RPC_FAILURES, rpc_failure_reason
from mintprep.chain.txs import describe_revert, quote_fees

GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F"
GAS_PRICE_ORACLE_ABI = [
    {
        "type": "function",
        "name": "getL1Fee",
        "stateMutability": "view",
        "inputs": [{"name": "_data", "type": "bytes"}],
        "outputs": [{"name": "", "type": "uint256"}],
    }
]
# Enough ETH for any plausible price: the estimate runs from a fresh address given this balance by state override.
_ESTIMATE_BALANCE_WEI = 10**24


@dataclass(frozen=True)
class MintCost:
    quantity: int
    gas: int
    l2_fee_wei: int
    l1_fee_wei: int | None  # None: the chain has no GasPriceOracle (not an OP-stack chain, or a local node)

    @property
    def total_fee_wei(self) -> int:
        return self.l2_fee_wei + (self.l1_fee_wei or 0)

    def to_json(self) -> dict[str, Any]:
        return {**{k: str(v) if v is not None else None for k, v in asdict(self).items()},
                "total_fee_wei": str(self.total_fee_wei)}


def unsigned_type2_tx(chain_id: int, to: str, data: bytes, value: int, gas: int, max_fee: int, tip: int) -> bytes:
    """EIP-1559 transaction bytes without a signature, as the GasPriceOracle expects (it adds the 68 bytes)."""
    fields = [chain_id, 0, tip, max_fee, gas, to_bytes(hexstr=to), value, data, []]
    return b"\x02" + rlp.encode(fields)


def estimate_mint_cost(w3: Web3, drop: Contract, phase: int, quantity: int, price_wei: int,
                       buyer: str | None = None, proof: list[bytes] | None = None) -> MintCost:
    """Gas and fees for `mint(phase, quantity, proof)` by a buyer with no mints yet (raises on RPC failure or revert).

    `buyer` defaults to a fresh random address (a public phase); an allowlist phase needs a listed one and its proof.
    """
    buyer = buyer or to_checksum_address("0x" + secrets.token_hex(20))
    value = price_wei * quantity
    call = {"from": buyer, "to": drop.address, "value": value,
            "data": drop.encode_abi("mint", [phase, quantity, proof or []])}
    gas = w3.eth.estimate_gas(call, "latest", {buyer: {"balance": value + _ESTIMATE_BALANCE_WEI}})
    fees = quote_fees(w3)
    l2_fee = gas * (fees.base_fee + fees.priority_fee)
    return MintCost(quantity=quantity, gas=gas, l2_fee_wei=l2_fee,
                    l1_fee_wei=_l1_fee(w3, call, gas, fees.max_fee, fees.priority_fee))


def _l1_fee(w3: Web3, call: dict[str, Any], gas: int, max_fee: int, tip: int) -> int | None:
    if not w3.eth.get_code(GAS_PRICE_ORACLE):
        return None
    oracle = w3.eth.contract(address=GAS_PRICE_ORACLE, abi=GAS_PRICE_ORACLE_ABI)
    tx = unsigned_type2_tx(w3.eth.chain_id, call["to"], to_bytes(hexstr=call["data"]), call["value"], gas, max_fee, tip)
    return int(oracle.functions.getL1Fee(tx).call())


def describe_estimate_failure(exc: BaseException) -> str:
    if isinstance(exc, ContractCustomError):
        return f"the mint would revert: {describe_revert(exc.data)}"
    return rpc_failure_reason(exc) if isinstance(exc, RPC_FAILURES) else f"{type(exc).__name__}: {exc}"
