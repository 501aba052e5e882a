"""`check` on a contract mintprep did not deploy: the sale as collection.yaml describes it against what the contract
enforces, read through the contract's profile (mintprep.chain.profile: price, limits, supply, pause roles).

What is compared, each only where the profile binds the role:
- price: the (first) sale phase's price in wei against the `price` role;
- limits: a yaml limit the contract does not enforce is a mismatch named as such ("the contract caps 5 per
  transaction and nothing per wallet"); `chain.max_per_tx` against the per-call cap; `max_per_wallet`, when the
  yaml sets it, against a per-wallet cap;
- supply: `size` against the `max_supply` role;
- pause: a collection.yaml with a sale expects it open, so a paused contract is a mismatch.
Each drift's fix names the owner's own setter (`setCost`, `setMaxMintAmountPerTx`, `setPaused`) with its arguments,
and `--print-tx` prints it as a transaction; a fixed value (supply) is fixed in collection.yaml instead. Nobody
is told to redeploy a contract that exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mintprep.chain.check import format_wei
from mintprep.chain.profile.contract import ContractCall, ProfiledContract
from mintprep.chain.settings import ChainSettings


@dataclass(frozen=True)
class SaleRow:
    """One compared value: field, what the yaml says, what the contract enforces, agreement, the fix and its call."""

    field: str
    expected: str | None
    on_chain: str | None
    ok: bool | None
    fix: str | None = None
    call: ContractCall | None = None


def sale_rows(contract: ProfiledContract, chain: ChainSettings, size: int) -> list[SaleRow]:
    """Every sale value the profile can read, compared with `chain` (and the collection's `size`)."""
    profile = contract.profile
    rows = [SaleRow("family", None, f"{profile.family} (roles read from {profile.source})", None)]
    phase = chain.sale_phases()[0]
    if profile.has("price"):
        rows.append(_compared(contract, "price", phase.price_wei, contract.read("price"), format_wei, "set_price"))
    rows += _limit_rows(contract, chain)
    if profile.has("max_supply"):
        on_chain = contract.read("max_supply")
        rows.append(SaleRow("max_supply", str(size), str(on_chain), size == on_chain,
                            None if size == on_chain else f"the contract's supply is fixed at {on_chain}: set "
                            f"`size: {on_chain}` in collection.yaml"))
    if profile.has("paused"):
        rows.append(_compared(contract, "paused", False, contract.read("paused"), _paused, "set_paused"))
    if profile.has("sale_config") and not profile.has("price"):  # thirdweb's claim conditions, Zora's salesConfig
        rows.append(SaleRow("sale_config", None, f"{profile.roles['sale_config']}: not compared yet (its price, "
                            "limits and window are not decoded by check; docs/families.md)", None))
    for role in ("total_supply", "total_minted"):
        if profile.has(role):
            rows.append(SaleRow(role, None, str(contract.read(role)), None))
    return rows


def _limit_rows(contract: ProfiledContract, chain: ChainSettings) -> list[SaleRow]:
    """Per-transaction and per-wallet caps as the contract enforces them; a yaml cap it does not enforce is named."""
    profile = contract.profile
    per_tx = contract.read("max_per_tx") if profile.has("max_per_tx") else None
    per_wallet = contract.read("max_per_wallet") if profile.has("max_per_wallet") else None
    enforced = _limits(per_tx, per_wallet)
    rows = []
    wallet_set = "max_per_wallet" in chain.model_fields_set or any(
        "max_per_wallet" in phase.model_fields_set for phase in chain.phases)
    wanted_wallet = chain.sale_phases()[0].max_per_wallet
    if wallet_set and per_wallet is None:
        rows.append(SaleRow("max_per_wallet", f"{wanted_wallet} per wallet", enforced, False,
                            f"the contract caps {enforced}: collection.yaml cannot make it limit wallets; "
                            + (f"write `max_per_tx: {per_tx}` instead of max_per_wallet (a wallet may mint again "
                               "and again)" if per_tx is not None else "remove max_per_wallet")))
    elif wallet_set:
        rows.append(_compared(contract, "max_per_wallet", wanted_wallet, per_wallet, str, "set_max_per_wallet"))
    if chain.max_per_tx is not None and per_tx is None:
        rows.append(SaleRow("max_per_tx", f"{chain.max_per_tx} per transaction", enforced, False,
                            f"the contract caps {enforced}: remove chain.max_per_tx"))
    elif chain.max_per_tx is not None:
        rows.append(_compared(contract, "max_per_tx", chain.max_per_tx, per_tx, str, "set_max_per_tx"))
    if not rows and (per_tx is not None or per_wallet is not None):
        rows.append(SaleRow("limits", None, enforced, None))
    return rows


def _limits(per_tx: int | None, per_wallet: int | None) -> str:
    tx = f"{per_tx} per transaction" if per_tx is not None else "nothing per transaction"
    wallet = f"{per_wallet} per wallet" if per_wallet is not None else "nothing per wallet"
    return f"{tx} and {wallet}"


def _compared(contract: ProfiledContract, field: str, expected: Any, on_chain: Any, show: Any,
              setter: str) -> SaleRow:
    """A compared row; on drift, the fix is the owner's setter (the call, when the owner could make it now)."""
    if expected == on_chain:
        return SaleRow(field, show(expected), show(on_chain), True)
    signature = contract.profile.roles.get(setter)
    if signature is None:
        return SaleRow(field, show(expected), show(on_chain), False,
                       f"this contract has no setter mintprep knows for {field}: correct collection.yaml to "
                       f"{show(on_chain)}")
    call = contract.setter_call(setter, expected)
    named = f"{signature[:signature.index('(')]}({_argument(expected)})"
    fix = (f"the owner calls {named} (`mintprep check --print-tx` prints the transaction), or correct "
           f"collection.yaml to {show(on_chain)}")
    if call is None:
        fix += f"; {named} would revert if sent now from the owner (renounced, or not the owner's to call)"
    return SaleRow(field, show(expected), show(on_chain), False, fix, call)


def _argument(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _paused(paused: bool) -> str:
    return "paused" if paused else "open"

