"""What the mint page reads and calls on the collection's contract, as data app.js runs: one function maps a contract
profile (mintprep.chain.profile) to the page's mint description, so the page stays one generic client.

The description (`cfg.mint` in the page's config JSON):
- `functions`: signature -> its JSON ABI entry (name, inputs, outputs: types and struct components only) plus
  `selector` (the page has no keccak);
- `reads`: [{as, call, args}] read in order on every refresh; `phases.reads` once per sale phase (`index`), `wallet`
  for the connected account in the open phase, `mint.reads` at mint time with the chosen quantity;
- expressions, JSON arrays evaluated by app.js over what was read: ["get", name, index…] (a read's answer, or `qty`,
  `account`, `index`, `phase_id`, `proof`, `price`; a read with one output is that output), ["lit", value], ["add"|"mul"|"eq", a, b], ["if", c, a, b],
  ["tuple", a, …] (a struct argument);
- `phases`: how many, and each one's start, end, price (per token, fees included), per-wallet and per-call caps,
  allowlist root and the ERC-20 token it is priced in (null: none; the page pays only in the chain's own coin); `supply` {minted, max}; `paused`; `mint` {call, args, value}: the family's own call
  and what it pays; `errors`: selector -> the custom errors a mint may revert with (and, where the page has no
  sentence of its own for one, what to say).
A family whose mint the page cannot make (Manifold's claim extensions) gets {family, elsewhere: {url, reason}} when
collection.yaml names `page.mint_url`, and PageCannotMint (exit 1, nothing built) when it does not."""

from __future__ import annotations

from typing import Any, Callable

from eth_utils import keccak

from mintprep.base import PageCannotMint
from mintprep.collection import BY_NAME, THIRDWEB_CLAIM, ROLES, Profile, abi_fragment, argument_types
from mintprep.page.abi import mint_errors

NEVER = str(2**64 - 1)  # a phase that never ends
NATIVE_TOKEN = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"  # thirdweb's currency for the chain's own coin
NO_ROOT = "0x" + "00" * 32
# What a role's read answers where the type depends on the family (the role itself says "one struct per platform").
SALE_ANSWERS = {
    "phase(uint256)": "((uint64,uint64,uint128,uint32,uint32,bytes32))",
    # thirdweb IClaimCondition.ClaimCondition: start, max claimable, claimed, limit per wallet, root, price, currency,
    # metadata.
    "getClaimConditionById(uint256)": "((uint256,uint256,uint256,uint256,bytes32,uint256,address,string))",
    # Zora IERC721Drop.SaleDetails: public / presale active, price, public start, end, presale start, end, root,
    # max per address, total minted, max supply.
    "saleDetails()": "((bool,bool,uint256,uint64,uint64,uint64,uint64,bytes32,uint256,uint256,uint256))",
    "mintedPerAddress(address)": "((uint256,uint256,uint256))",  # Zora: total, presale, public mints
}


def get(*path: Any) -> list[Any]:
    return ["get", *path]


def lit(value: Any) -> list[Any]:
    return ["lit", value]


QTY, ACCOUNT = get("qty"), get("account")


class _Sale:
    """The description being written: the functions it names, with the fragment of each."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.functions: dict[str, dict[str, Any]] = {}

    def call(self, role: str, name: str, *args: Any) -> dict[str, Any]:
        """{as: name, call: signature, args}: a read (or the mint) of `role`, its fragment recorded."""
        signature = self.profile.roles[role]
        answers = SALE_ANSWERS.get(signature) or ROLES[role].answers
        entry = abi_fragment(signature, answers)
        self.functions[signature] = {"name": entry["name"], "inputs": _types(entry["inputs"]),
                                     "outputs": _types(entry["outputs"]),
                                     "selector": "0x" + keccak(text=signature)[:4].hex()}
        return {"as": name, "call": signature, "args": list(args)}

    def optional(self, role: str, name: str, *args: Any) -> list[dict[str, Any]]:
        return [self.call(role, name, *args)] if self.profile.has(role) else []

    def value_of(self, role: str, name: str) -> list[Any] | None:
        return get(name) if self.profile.has(role) else None


def _types(parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ABI parameters as the page needs them: types and struct components, no names (the page weighs its bytes)."""
    return [{"type": p["type"], **({"components": _types(p["components"])} if "components" in p else {})}
            for p in parameters]


def errors_of(texts: dict[str, str]) -> dict[str, Any]:
    """{selector: {name, inputs, text}}: custom errors a mint may revert with (by signature), and what the page says."""
    return {"0x" + keccak(text=signature)[:4].hex(): {
        "name": signature[: signature.index("(")], "text": text,
        "inputs": [{"name": "", "type": t} for t in argument_types(signature)]} for signature, text in texts.items()}


def _one_phase(start: Any = lit("0"), end: Any = lit(NEVER), **fields: Any) -> dict[str, Any]:
    return {"count": lit(1), "reads": [], "name": "Public sale", "start": start, "end": end, "root": None,
            "per_wallet": None, "per_tx": None, "token": None, **fields}


def _drop_phases(sale: _Sale) -> dict[str, Any]:
    """MintprepDrop: phases with windows, prices, per-wallet caps and allowlist roots; mint(phase, quantity, proof)."""
    phase = lambda field: get("phase", field)  # noqa: E731
    return {
        "reads": [sale.call("max_supply", "max"), sale.call("total_minted", "minted"), sale.call("paused", "paused"),
                  sale.call("phase_count", "phases")],
        "phases": {"count": get("phases"), "reads": [sale.call("sale_config", "phase", get("index"))], "name": None,
                   "token": None,
                   "start": phase(0), "end": phase(1), "price": phase(2), "per_wallet": phase(3), "per_tx": None,
                   "root": phase(5)},
        "supply": {"minted": get("minted"), "max": get("max")}, "paused": get("paused"),
        "wallet": {"reads": [sale.call("minted_by_wallet", "mine", get("phase_id"), ACCOUNT)], "minted": get("mine")},
        "mint": {**sale.call("mint", "mint", get("phase_id"), QTY, get("proof")), "reads": [],
                 "value": ["mul", get("price"), QTY]},
        "errors": mint_errors(),
    }


def _quantity_sale(sale: _Sale) -> dict[str, Any]:
    """mint(quantity) paying price × quantity (HashLips' SimpleNft and SimpleNftLowerGas): one open sale, a
    per-call cap, pause."""
    return {
        "reads": [sale.call("price", "price"), sale.call("max_supply", "max"), sale.call("total_supply", "minted"),
                  *sale.optional("paused", "paused"), *sale.optional("max_per_tx", "per_tx"),
                  *sale.optional("max_per_wallet", "per_wallet")],
        "phases": _one_phase(price=get("price"), per_tx=sale.value_of("max_per_tx", "per_tx"),
                             per_wallet=sale.value_of("max_per_wallet", "per_wallet")),
        "supply": {"minted": get("minted"), "max": get("max")}, "paused": sale.value_of("paused", "paused"),
        "wallet": None,
        "mint": {**sale.call("mint", "mint", QTY), "reads": [], "value": ["mul", get("price"), QTY]},
        "errors": {},
    }


def _thirdweb_claim(sale: _Sale) -> dict[str, Any]:
    """thirdweb DropERC721: claim(receiver, quantity, currency, price, (proof, limit, price, currency), data) under
    the active claim condition, paying price × quantity in the chain's own coin. A condition priced in an ERC-20
    token is shown as such and not offered: paying it takes an approval this page does not ask for."""
    condition = lambda field: get("condition", field)  # noqa: E731
    price, currency, limit = condition(5), condition(6), condition(3)
    native = ["eq", currency, lit(NATIVE_TOKEN)]
    return {
        "reads": [sale.call("claim_condition", "condition_id"),
                  sale.call("sale_config", "condition", get("condition_id")),
                  sale.call("total_minted", "minted"), sale.call("next_id", "max")],
        "phases": _one_phase(start=condition(0), price=price, per_wallet=limit, root=condition(4),
                             token=["if", native, lit(None), currency]),
        "supply": {"minted": get("minted"), "max": get("max")}, "paused": None,
        "wallet": {"reads": [sale.call("minted_by_wallet", "mine", get("condition_id"), ACCOUNT)],
                   "minted": get("mine")},
        "mint": {**sale.call("mint", "mint", ACCOUNT, QTY, currency, price, ["tuple", lit([]), limit, price, currency],
                             lit("0x")),
                 "reads": [], "value": ["mul", price, QTY]},
        "errors": {},
    }


def _zora_purchase(sale: _Sale) -> dict[str, Any]:
    """Zora ERC721Drop: purchase(quantity) paying saleDetails' price × quantity plus zoraFeeForAmount(quantity) (the
    contract wants exactly that); a maxSalePurchasePerAddress of 0 is no cap."""
    details = lambda field: get("details", field)  # noqa: E731
    return {
        "reads": [sale.call("sale_details", "details"), sale.call("mint_fee", "fee_one", lit(1))],
        "phases": _one_phase(start=details(3), end=details(4), price=["add", details(2), get("fee_one", 1)],
                             per_wallet=["if", ["eq", details(8), lit(0)], lit(None), details(8)]),
        "supply": {"minted": details(9), "max": details(10)}, "paused": None,
        "wallet": {"reads": [sale.call("minted_by_wallet", "mine", ACCOUNT)], "minted": get("mine", 2)},
        "mint": {**sale.call("mint", "mint", QTY), "reads": [sale.call("mint_fee", "fee", QTY)],
                 "value": ["add", ["mul", details(2), QTY], get("fee", 1)]},
        "errors": errors_of({"Purchase_WrongPrice(uint256)": "Wrong price: the price has been re-read; try again.",
                             "Purchase_TooManyForAddress()": "Over the limit per wallet for this sale.",
                             "Mint_SoldOut()": "Sold out.", "Sale_Inactive()": "The sale is not open."}),
    }


# The page's sale for each mint call it can make, by the signature the profile binds to the `mint` role.
SALES: dict[str, tuple[Callable[[_Sale], dict[str, Any]], tuple[str, ...]]] = {
    "mint(uint256,uint256,bytes32[])": (_drop_phases, ("max_supply", "total_minted", "paused", "phase_count",
                                                       "sale_config", "minted_by_wallet")),
    "mint(uint256)": (_quantity_sale, ("price", "max_supply", "total_supply")),
    THIRDWEB_CLAIM: (_thirdweb_claim, ("claim_condition", "sale_config", "total_minted", "next_id",
                                       "minted_by_wallet")),
    "purchase(uint256)": (_zora_purchase, ("sale_details", "mint_fee", "minted_by_wallet")),
}


def mint_description(profile: Profile, mint_url: str | None = None) -> dict[str, Any]:
    """The page's mint description for a contract with `profile` (see the module docstring); PageCannotMint when
    the page could not mint and collection.yaml names no page.mint_url to send collectors to instead."""
    mint = profile.roles.get("mint")
    sale = SALES.get(mint or "")
    missing = [] if sale is None else [role for role in sale[1] if not profile.has(role)]
    if sale is not None and not missing:
        writer = _Sale(profile)
        described = sale[0](writer)
        return {"family": profile.family, "functions": dict(sorted(writer.functions.items())), "elsewhere": None,
                **described}
    if mint is None:
        reason = f"the {profile.family} contract has no public mint function the page can call"
    elif sale is None:
        reason = f"the page cannot make the {profile.family} contract's mint call {mint}"
    else:
        reason = (f"the {profile.family} contract's profile lacks what the page reads for {mint}: "
                  + ", ".join(missing))
    if mint_url:
        return {"family": profile.family, "elsewhere": {"url": mint_url, "reason": reason}}
    raise PageCannotMint(f"the page could not mint: {reason}; nothing was built or published. Set page.mint_url to "
                         "where collectors mint (the platform's claim page), or declare the sale's roles in "
                         "chain.profile.roles")


def drop_description() -> dict[str, Any]:
    """The description for MintprepDrop, the contract mintprep deploys (every role its entry declares)."""
    entry = BY_NAME["mintprep-drop"]
    return mint_description(Profile(entry.name, entry.uri_form, dict(entry.roles), entry.first_id, "declared"))
