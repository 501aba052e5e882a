"""Function signatures and selectors: the vocabulary a profile is written in, read from an ABI or from runtime code,
and written back as the JSON ABI entries a contract is called through.

A contract's functions are a map selector -> signature (the signature unknown where only code was read: evmole
recovers selectors, argument types and mutability from the dispatcher, never names)."""

from __future__ import annotations

import re
from typing import Any, Iterable

from eth_utils import keccak

# name(type,type,...) with ABI types, tuples in parentheses: what `chain.profile` accepts.
_NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"
SIGNATURE = re.compile(rf"^{_NAME}\((.*)\)$")
_TYPE = re.compile(r"^(?:u?int(?:8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192"
                   r"|200|208|216|224|232|240|248|256)|address|bool|string|bytes(?:[1-9]|[12][0-9]|3[0-2])?)"
                   r"(?:\[\d*\])*$")


# Topic 0 of ERC-721 (and ERC-20) Transfer: how a contract's mints are found in its logs and in a mint's receipt.
TRANSFER_TOPIC = "0x" + keccak(text="Transfer(address,address,uint256)").hex()


def selector(signature: str) -> str:
    """The 4-byte selector, 8 hex digits without 0x."""
    return keccak(text=signature)[:4].hex()


def argument_types(signature: str) -> list[str]:
    """The top-level argument types of `name(a,b,(c,d)[])`: ["a", "b", "(c,d)[]"]."""
    inner = signature[signature.index("(") + 1: -1]
    types, depth, start = [], 0, 0
    for i, char in enumerate(inner):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            types.append(inner[start:i])
            start = i + 1
    if inner:
        types.append(inner[start:])
    return types


def _valid_type(text: str) -> bool:
    if text.startswith("("):
        close = text.rfind(")")
        return close > 0 and re.fullmatch(r"(\[\d*\])*", text[close + 1:]) is not None and all(
            _valid_type(t) for t in argument_types("t" + text[: close + 1]))
    return _TYPE.match(text) is not None


def checked_signature(text: str) -> str:
    """`text` when it is a canonical signature (no spaces, no names, uint not uint256 is refused: its selector would
    differ); ValueError saying what is wrong otherwise."""
    if SIGNATURE.match(text) is None or " " in text:
        raise ValueError(f"{text!r} is not a function signature like setBaseURI(string) (no spaces, no argument names)")
    bad = [t for t in argument_types(text) if not _valid_type(t)]
    if bad:
        raise ValueError(f"{text!r}: {', '.join(bad)} is not a canonical ABI type (write uint256, not uint)")
    return text


def _abi_type(parameter: dict[str, Any]) -> str:
    kind = str(parameter.get("type", ""))
    if kind.startswith("tuple"):
        return "(" + ",".join(_abi_type(c) for c in parameter.get("components") or []) + ")" + kind[len("tuple"):]
    return kind


def abi_signatures(abi: Iterable[Any]) -> dict[str, str]:
    """selector -> signature for each function of a JSON ABI (other entries, and malformed ones, are left out)."""
    found: dict[str, str] = {}
    for entry in abi:
        if not isinstance(entry, dict) or entry.get("type", "function") != "function" or not entry.get("name"):
            continue
        inputs = entry.get("inputs") or []
        if not isinstance(inputs, list) or not all(isinstance(p, dict) for p in inputs):
            continue
        signature = f"{entry['name']}({','.join(_abi_type(p) for p in inputs)})"
        found[selector(signature)] = signature
    return found


def _parameter(kind: str) -> dict[str, Any]:
    if kind.startswith("("):
        close = kind.rfind(")")
        return {"type": "tuple" + kind[close + 1:],
                "components": [dict(_parameter(t), name=f"c{i}")
                               for i, t in enumerate(argument_types("t" + kind[: close + 1]))]}
    return {"type": kind}


def abi_fragment(signature: str, answers: str | None, mutability: str | None = None) -> dict[str, Any]:
    """The JSON ABI entry of `signature` answering `answers` (one type, or "(a,b)" for several outputs; None: a
    transaction), `view` for a read and `nonpayable` for a call unless `mutability` says otherwise."""
    outputs = [] if answers is None else (
        [dict(_parameter(t), name="") for t in argument_types("t" + answers)] if answers.startswith("(")
        else [{"name": "", "type": answers}])
    return {"type": "function", "name": signature[: signature.index("(")],
            "stateMutability": mutability or ("view" if answers is not None else "nonpayable"),
            "inputs": [dict(_parameter(t), name=f"a{i}") for i, t in enumerate(argument_types(signature))],
            "outputs": outputs}


def code_selectors(code: bytes) -> dict[str, str | None]:
    """selector -> None for each function the runtime code dispatches (evmole: names are not in code)."""
    import evmole  # a compiled wheel: imported only where code is read

    info = evmole.contract_info(code, selectors=True)
    return {function.selector: None for function in info.functions or []}
