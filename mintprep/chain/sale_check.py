"""`check` on a contract mintprep did not deploy: the sale as collection.yaml describes it against what the contract
enforces, read through the contract's profile (mintprep.chain.profile: price, limits, supply, pause roles; or the
one struct a family keeps its sale in, mintprep.chain.sale_terms: Zora's salesConfig, thirdweb's claim condition).

What is compared, each only where the family has it:
- price: the (first) sale phase's price in wei; a sale paid in another token is a mismatch named with the token;
- limits: a yaml limit the contract does not enforce is a mismatch named as such ("the contract caps 5 per
  transaction and nothing per wallet"); `chain.max_per_tx` against a per-call cap; `max_per_wallet`, when the
  yaml sets it, against a per-wallet cap;
- supply: `size` against the `max_supply` role;
- the sale open now: a collection.yaml with a sale expects it open (not paused, inside its window).
Each drift's fix names the owner's own setter (`setCost`, `setMaxMintAmountPerTx`, `setPaused`,
`setSaleConfiguration`, `setClaimConditions`) with its arguments, and `--print-tx` prints it as a transaction;
a value fixed at deploy (supply) is fixed in collection.yaml instead. Nobody is told to redeploy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mintprep.chain.amounts_text import format_time, format_wei
from mintprep.chain.profile.contract import ContractCall, ProfiledContract
from mintprep.chain.sale_terms import SaleTerms, call_setting, sale_terms
from mintprep.collection import ChainSettings

PRINT_TX = "`mintprep check --print-tx` prints the transaction"


@dataclass(frozen=True)
class SaleRow:
    """One compared value: field, what the yaml says, what the contract enforces, agreement, the fix and its call."""

    field: str
    expected: str | None
    on_chain: str | None
    ok: bool | None
    fix: str | None = None
    call: ContractCall | None = None


@dataclass(frozen=True)
class Fix:
    """How the owner makes one value agree: the call named for people, and the transaction when it would succeed."""

    named: str
    call: ContractCall | None


def sale_rows(contract: ProfiledContract, chain: ChainSettings, size: int) -> list[SaleRow]:
    """Every sale value the family exposes, compared with `chain` (and the collection's `size`)."""
    profile = contract.profile
    rows = [SaleRow("family", None, f"{profile.family} (roles read from {profile.source})", None)]
    terms = sale_terms(contract) if profile.has("sale_config") else None
    if terms is not None:
        rows += _struct_rows(contract, terms, chain)
    elif profile.has("sale_config"):
        rows.append(SaleRow("sale_config", None, f"{profile.roles['sale_config']}: no active sale to compare", False,
                            "open a sale (a claim condition, a sale configuration) from the contract's admin"))
    else:
        rows += _role_rows(contract, chain)
    if profile.has("max_supply"):
        on_chain = contract.read("max_supply")
        rows.append(SaleRow("max_supply", str(size), str(on_chain), size == on_chain,
                            None if size == on_chain else f"the contract's supply is fixed at {on_chain}: set "
                            f"`size: {on_chain}` in collection.yaml"))
    for role in ("total_supply", "total_minted"):
        if profile.has(role):
            rows.append(SaleRow(role, None, str(contract.read(role)), None))
    return rows


def _role_rows(contract: ProfiledContract, chain: ChainSettings) -> list[SaleRow]:
    """A sale kept in separate values (the HashLips shapes): each compared, each with its own setter."""
    profile = contract.profile
    rows = []
    if profile.has("price"):
        rows.append(_compared("price", chain.sale_phases()[0].price_wei, contract.read("price"), format_wei,
                              _setter(contract, "set_price")))
    per_tx = contract.read("max_per_tx") if profile.has("max_per_tx") else None
    per_wallet = contract.read("max_per_wallet") if profile.has("max_per_wallet") else None
    rows += _limit_rows(chain, per_tx, per_wallet, _setter(contract, "set_max_per_tx"), lambda n: None)
    if profile.has("paused"):
        rows.append(_compared("paused", False, contract.read("paused"), _paused, _setter(contract, "set_paused")))
    return rows


def _struct_rows(contract: ProfiledContract, terms: SaleTerms, chain: ChainSettings) -> list[SaleRow]:
    """A sale kept in one struct (Zora, thirdweb): one call rewrites it, so every drifted value names that call."""
    phase = chain.sale_phases()[0]
    now = contract.w3.eth.get_block("latest")["timestamp"]
    wallet = phase.max_per_wallet if _wallet_cap_set(chain) else terms.per_wallet
    is_open = terms.start <= now < terms.end
    start, end = (terms.start, terms.end) if is_open else (phase.start_time, phase.end_time)
    call = call_setting(contract, terms, price=phase.price_wei, per_wallet=wallet, start=start, end=end)
    setter = Fix(f"{call.function.split('(')[0] if call else 'the sale setter'}(price {phase.price_wei}, "
                 f"per wallet {wallet or 'none'}, start {start})", call)
    rows = []
    if terms.currency is not None:
        rows.append(SaleRow("currency", "the chain's own coin (ETH)", terms.currency, False,
                            f"the sale takes the token {terms.currency}: collection.yaml prices in ETH only; "
                            "compare its price by hand"))
    else:
        rows.append(_compared("price", phase.price_wei, terms.price, format_wei, lambda value: setter))
    rows += _limit_rows(chain, None, terms.per_wallet, lambda n: None, lambda n: setter)
    rows.append(_compared("sale_open", True, is_open, lambda o: "open" if o else
                          f"closed (window {format_time(terms.start)} to {format_time(terms.end)})",
                          lambda value: setter))
    return _one_call(rows)


def _one_call(rows: list[SaleRow]) -> list[SaleRow]:
    """The struct's one transaction is printed once, on the first row that needs it."""
    seen: set[str] = set()
    kept = []
    for row in rows:
        if row.call is not None and row.call.data in seen:
            row = SaleRow(row.field, row.expected, row.on_chain, row.ok, row.fix)
        elif row.call is not None:
            seen.add(row.call.data)
        kept.append(row)
    return kept


def _wallet_cap_set(chain: ChainSettings) -> bool:
    """Whether the yaml itself sets a per-wallet cap (the default of 5 is not a claim about the contract)."""
    return "max_per_wallet" in chain.model_fields_set or any(
        "max_per_wallet" in phase.model_fields_set for phase in chain.phases)


def _limit_rows(chain: ChainSettings, per_tx: int | None, per_wallet: int | None,
                tx_setter: Callable[[Any], Fix | None], wallet_setter: Callable[[Any], Fix | None]) -> list[SaleRow]:
    """Per-transaction and per-wallet caps as the contract enforces them; a yaml cap it does not enforce is named."""
    enforced = _limits(per_tx, per_wallet)
    rows = []
    wanted_wallet = chain.sale_phases()[0].max_per_wallet
    if _wallet_cap_set(chain) and per_wallet is None:
        rows.append(SaleRow("max_per_wallet", f"{wanted_wallet} per wallet", enforced, False,
                            f"the contract caps {enforced}: collection.yaml cannot make it limit wallets; "
                            + (f"write `max_per_tx: {per_tx}` instead of max_per_wallet (a wallet may mint again "
                               "and again)" if per_tx is not None else "remove max_per_wallet")))
    elif _wallet_cap_set(chain):
        rows.append(_compared("max_per_wallet", wanted_wallet, per_wallet, str, wallet_setter))
    if chain.max_per_tx is not None and per_tx is None:
        rows.append(SaleRow("max_per_tx", f"{chain.max_per_tx} per transaction", enforced, False,
                            f"the contract caps {enforced}: remove chain.max_per_tx"
                            + (f" and write `max_per_wallet: {per_wallet}`" if per_wallet is not None else "")))
    elif chain.max_per_tx is not None:
        rows.append(_compared("max_per_tx", chain.max_per_tx, per_tx, str, tx_setter))
    if not rows and (per_tx is not None or per_wallet is not None):
        rows.append(SaleRow("limits", None, enforced, None))
    return rows


def _limits(per_tx: int | None, per_wallet: int | None) -> str:
    tx = f"{per_tx} per transaction" if per_tx is not None else "nothing per transaction"
    wallet = f"{per_wallet} per wallet" if per_wallet is not None else "nothing per wallet"
    return f"{tx} and {wallet}"


def _setter(contract: ProfiledContract, role: str) -> Callable[[Any], Fix | None]:
    """The owner's setter in `role`, given the value it should set; None when the family has none."""
    signature = contract.profile.roles.get(role)
    if signature is None:
        return lambda value: None
    name = signature[:signature.index("(")]
    return lambda value: Fix(f"{name}({str(value).lower() if isinstance(value, bool) else value})",
                             contract.setter_call(role, value))


def _compared(field: str, expected: Any, on_chain: Any, show: Callable[[Any], str],
              setter: Callable[[Any], Fix | None]) -> SaleRow:
    """A compared row; on drift, the fix is the owner's setter (its transaction, when the owner could send it)."""
    if expected == on_chain:
        return SaleRow(field, show(expected), show(on_chain), True)
    fix = setter(expected)
    if fix is None:
        return SaleRow(field, show(expected), show(on_chain), False,
                       f"this contract has no setter mintprep knows for {field}: correct collection.yaml to "
                       f"{show(on_chain)}")
    text = f"the owner calls {fix.named} ({PRINT_TX}), or correct collection.yaml to {show(on_chain)}"
    if fix.call is None:
        text += f"; {fix.named} would revert if sent now from the owner (renounced, or not the owner's to call)"
    return SaleRow(field, show(expected), show(on_chain), False, text, fix.call)


def _paused(paused: bool) -> str:
    return "paused" if paused else "open"
