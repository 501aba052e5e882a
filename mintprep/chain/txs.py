"""Sending a contract transaction the careful way: simulate, price explicitly, sign locally, check the receipt.

Fees are set here, never left to web3: when a node does not answer eth_maxPriorityFeePerGas, web3 falls back
to a 1-1.5 gwei tip, hundreds of times Base's usual base fee.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Union

from eth_abi import decode
from eth_account.signers.local import LocalAccount
from eth_utils import to_checksum_address
from web3 import Web3
from web3.contract.contract import ContractConstructor, ContractFunction
from web3.exceptions import ContractCustomError, ContractLogicError, TimeExhausted
from web3.types import TxReceipt

from mintprep.chain.artifact import Artifact, load_artifact
from mintprep.chain.rpc import RPC_FAILURES, rpc_failure_reason
from mintprep.base import RemoteError, UserError

ContractCall = Union[ContractFunction, ContractConstructor]

# Tip floor: 0.001 gwei. Base orders by priority fee, so a zero tip can wait behind everyone; this floor adds
# about 1e-10 ETH to a 100k-gas mint.
MIN_PRIORITY_FEE_WEI = 1_000_000
FEE_HISTORY_BLOCKS = 10
TIP_PERCENTILE = 10
GAS_HEADROOM = 1.2
RECEIPT_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class FeeQuote:
    base_fee: int
    priority_fee: int

    @property
    def max_fee(self) -> int:
        # Base's docs: 2 x base fee + tip survives a few full blocks of base-fee growth.
        return 2 * self.base_fee + self.priority_fee

    def tx_fields(self) -> dict[str, int]:
        return {"maxFeePerGas": self.max_fee, "maxPriorityFeePerGas": self.priority_fee}


def choose_priority_fee(recent_low_tips: list[int]) -> int:
    """The median of recent blocks' low-percentile tips, but at least MIN_PRIORITY_FEE_WEI."""
    paid = [tip for tip in recent_low_tips if tip > 0]
    return max(int(statistics.median(paid)) if paid else 0, MIN_PRIORITY_FEE_WEI)


def quote_fees(w3: Web3) -> FeeQuote:
    history = w3.eth.fee_history(FEE_HISTORY_BLOCKS, "latest", [TIP_PERCENTILE])
    # fee_history returns one more base fee than blocks: the last is the next block's.
    next_base_fee = int(history["baseFeePerGas"][-1])
    tips = [int(rewards[0]) for rewards in history.get("reward", []) if rewards]
    return FeeQuote(base_fee=next_base_fee, priority_fee=choose_priority_fee(tips))


def describe_revert(data: str | bytes | None, artifact: Artifact | None = None) -> str:
    """`WalletLimit(allowed=0)` for a custom-error revert payload, or the raw hex when unknown."""
    raw = bytes.fromhex(data[2:] if data.startswith("0x") else data) if isinstance(data, str) else (data or b"")
    entry = (artifact or load_artifact()).errors_by_selector.get(raw[:4])
    if entry is None:
        return f"unknown error 0x{raw.hex()}" if raw else "reverted without a reason"
    values = decode([i["type"] for i in entry["inputs"]], raw[4:])
    args = ", ".join(
        f"{i['name']}={to_checksum_address(v) if i['type'] == 'address' else v}" for i, v in zip(entry["inputs"], values)
    )
    return f"{entry['name']}({args})"


def send_call(w3: Web3, signer: LocalAccount, call: ContractCall, what: str, value: int = 0) -> TxReceipt:
    """Simulate `call` from `signer`, then send it as a type-2 transaction and wait for a successful receipt.

    A revert in simulation is a UserError naming the contract error (nothing is sent); a mined failure or a
    node that stops answering is a RemoteError naming the transaction hash.
    """
    params: dict[str, Any] = {"from": signer.address, "value": value}
    try:
        gas = call.estimate_gas(params)
    except ContractCustomError as exc:
        raise UserError(f"{what} would revert: {describe_revert(exc.data)}; nothing was sent") from None
    except ContractLogicError as exc:
        raise UserError(f"{what} would revert: {exc.message}; nothing was sent") from None
    except RPC_FAILURES as exc:
        raise UserError(f"{what}: the node refused the simulation: {rpc_failure_reason(exc)}") from None
    tx = call.build_transaction(
        {
            **params,
            "gas": int(gas * GAS_HEADROOM),
            "nonce": w3.eth.get_transaction_count(signer.address, "pending"),
            "chainId": w3.eth.chain_id,
            **quote_fees(w3).tx_fields(),
        }
    )
    signed = signer.sign_transaction(tx)
    try:
        tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction).to_0x_hex()
    except RPC_FAILURES as exc:
        raise UserError(f"{what}: the node rejected the transaction from {signer.address}: {rpc_failure_reason(exc)}") from None
    try:
        receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=RECEIPT_TIMEOUT_S)
    except TimeExhausted:
        raise RemoteError(f"{what}: transaction {tx_hash} not mined within {RECEIPT_TIMEOUT_S:.0f} s") from None
    if receipt["status"] != 1:
        raise RemoteError(f"{what}: transaction {tx_hash} was mined but reverted")
    return receipt
