"""The slice of the drop contract's ABI the page needs, with selectors computed here (no keccak in the page)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from eth_utils import keccak

from mintprep.chain import load_artifact
from mintprep.base import MintprepError

# What the page calls: the views it shows and the one payable function. Outputs are static words (a struct of
# static fields is its fields' words in order); the one dynamic input is mint's proof (bytes32[]).
PAGE_FUNCTIONS = ("maxSupply", "totalMinted", "phaseCount", "phase", "mintedInPhase", "paused", "mint")
TRANSFER_EVENT = "Transfer(address,address,uint256)"
# The errors a mint can revert with (the drop's own checks, pause, the guard, a receiver refusing the token): the
# page decodes these; owner-only errors would only weigh on the first load.
MINT_ERRORS = ("UnknownPhase", "PhaseNotStarted", "PhaseEnded", "NotOnAllowlist", "ZeroQuantity", "SoldOut",
               "PhaseSoldOut", "WalletLimit", "WrongPayment", "EnforcedPause", "ReentrancyGuardReentrantCall",
               "ERC721InvalidReceiver")


@lru_cache(maxsize=1)
def drop_abi() -> tuple[dict[str, Any], ...]:
    return tuple(load_artifact().abi)


def signature(entry: dict[str, Any]) -> str:
    return f"{entry['name']}({','.join(_canonical_type(i) for i in entry.get('inputs', []))})"


def selector(entry: dict[str, Any]) -> str:
    return "0x" + keccak(text=signature(entry))[:4].hex()


def page_abi() -> dict[str, Any]:
    """{"functions": {name: {selector, inputs, outputs}}, "errors": {selector: {name, inputs}}} for app.js."""
    abi = drop_abi()
    functions = {e["name"]: e for e in abi if e.get("type") == "function" and e["name"] in PAGE_FUNCTIONS}
    missing = sorted(set(PAGE_FUNCTIONS) - set(functions)) + sorted(
        set(MINT_ERRORS) - {e["name"] for e in abi if e.get("type") == "error"})
    if missing:
        raise MintprepError(f"contract ABI lacks {', '.join(missing)}: the page cannot work with this contract")
    return {
        "functions": {
            name: {
                "selector": selector(entry),
                "inputs": [_canonical_type(i) for i in entry["inputs"]],
                "outputs": [t for o in entry.get("outputs", []) for t in _word_types(o)],
            }
            for name, entry in sorted(functions.items())
        },
        # Topic 0 of ERC-721 Transfer: the page reads the token ids a mint produced from the receipt's logs.
        "transfer_topic": "0x" + keccak(text=TRANSFER_EVENT).hex(),
        "errors": {
            selector(entry): {
                "name": entry["name"],
                "inputs": [{"name": i.get("name", ""), "type": _canonical_type(i)} for i in entry.get("inputs", [])],
            }
            for entry in sorted((e for e in abi if e.get("type") == "error" and e["name"] in MINT_ERRORS), key=signature)
        },
    }


def _word_types(param: dict[str, Any]) -> list[str]:
    """One type per returned word: a static struct flattens to its fields."""
    if param["type"] == "tuple":
        return [t for c in param["components"] for t in _word_types(c)]
    return [_canonical_type(param)]


def _canonical_type(param: dict[str, Any]) -> str:
    kind = param["type"]
    if kind.startswith("tuple"):
        return "(" + ",".join(_canonical_type(c) for c in param["components"]) + ")" + kind[len("tuple"):]
    return kind
