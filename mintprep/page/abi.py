"""The custom errors MintprepDrop's mint can revert with, as the page decodes them (selectors computed here: the page
has no keccak)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from eth_utils import keccak

from mintprep.chain import load_artifact
from mintprep.base import MintprepError

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


def mint_errors() -> dict[str, Any]:
    """{selector: {name, inputs: [{name, type}]}} for MintprepDrop's mint errors."""
    errors = [e for e in drop_abi() if e.get("type") == "error" and e["name"] in MINT_ERRORS]
    missing = sorted(set(MINT_ERRORS) - {e["name"] for e in errors})
    if missing:
        raise MintprepError(f"contract ABI lacks {', '.join(missing)}: the page cannot decode its reverts")
    return {selector(entry): {"name": entry["name"],
                              "inputs": [{"name": i.get("name", ""), "type": _canonical_type(i)}
                                         for i in entry.get("inputs", [])]}
            for entry in sorted(errors, key=signature)}


def _canonical_type(param: dict[str, Any]) -> str:
    kind = param["type"]
    if kind.startswith("tuple"):
        return "(" + ",".join(_canonical_type(c) for c in param["components"]) + ")" + kind[len("tuple"):]
    return kind
