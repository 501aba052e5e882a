"""A contract's profile, from the first source that has one: the profile declared in collection.yaml
(`chain.profile`, or an ABI file `chain.abi`), a verified ABI (when `chain.verify` names the services), then the
function selectors in the runtime code. An unknown or ambiguous contract is a ProfileError (exit 2) saying what is
missing and how to declare it: nothing acts on a guess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from web3 import Web3

from mintprep.base import NoContract, ProfileError, UserError
from mintprep.collection import BY_NAME, ERC721, KNOWN, FamilyEntry
from mintprep.collection import ROLES, Profile, UriForm
from mintprep.collection import abi_signatures, selector
from mintprep.chain.profile.sources import AbiServices, ContractCode, Functions, read_code, verified_functions

if TYPE_CHECKING:
    from mintprep.collection import ChainSettings, ProfileSettings

HOW_TO_DECLARE = ("declare its roles in collection.yaml, e.g. chain.profile: {roles: {set_base_uri: "
                  "\"setBaseURI(string)\"}} (or chain.abi: <its ABI file>)")


def family_of(functions: Functions, where: str) -> FamilyEntry:
    """The one known family whose identifying functions the contract has (the most specific one)."""
    present = set(functions)
    lacking = [s for s in ERC721 if selector(s) not in present]
    if lacking:
        raise ProfileError(f"{where}: not an ERC-721 with token URIs (no {', '.join(lacking)})")
    matches = [e for e in KNOWN if all(selector(s) in present for s in e.required)]
    maximal = [e for e in matches if not any(e.required < other.required for other in matches)]
    if len(maximal) > 1:
        raise ProfileError(f"{where}: its functions fit {' and '.join(e.name for e in maximal)} alike; "
                           f"name one: chain.profile: {{family: {maximal[0].name}}}, or {HOW_TO_DECLARE}")
    if not maximal:
        setters = sorted({s for e in KNOWN for role, s in e.roles.items() if role.startswith("set_") and "uri" in role})
        raise ProfileError(f"{where}: it has none of the token-URI setters mintprep knows ({', '.join(setters)}), so "
                           f"its URIs cannot be read or repaired by role; {HOW_TO_DECLARE}")
    return maximal[0]


def profile_of(entry: FamilyEntry, functions: Functions, source: str, implementation: str | None = None) -> Profile:
    roles = {role: s for role, s in entry.roles.items() if selector(s) in functions}
    return Profile(entry.name, entry.uri_form, {**roles, **entry.renderer_roles}, entry.first_id, source,
                   implementation, entry.admin_role)


def declared_profile(declared: "ProfileSettings", code: ContractCode | None = None) -> Profile:
    """The user's profile: its roles as written (token_uri, owner_of and owner filled in), its family named or
    matched from those signatures; each declared function checked against the runtime code when it was read."""
    roles = {"token_uri": "tokenURI(uint256)", "owner_of": "ownerOf(uint256)", "owner": "owner()", **declared.roles}
    entry = BY_NAME.get(declared.family or "")
    if entry is None and declared.roles:
        try:
            entry = family_of({selector(s): s for s in roles.values()}, "chain.profile")
        except ProfileError:
            entry = None
    if code is not None:
        have = code.functions
        absent = [f"{role}: {s}" for role, s in declared.roles.items()
                  if ROLES[role].on == "contract" and selector(s) not in have]
        if absent and have:
            raise ProfileError(f"chain.profile.roles names function(s) the contract at {code.address} does not have: "
                               + "; ".join(absent))
    if entry is not None:  # the family's other roles, where its code was read and has them
        have = code.functions if code is not None else {}
        family_roles = {r: s for r, s in entry.roles.items() if selector(s) in have}
        roles = {**entry.renderer_roles, **family_roles, **roles}
    form = declared.uri_form or (entry.uri_form if entry else _form_of(roles))
    first_id = declared.first_id if declared.first_id is not None else (entry.first_id if entry else None)
    return Profile(entry.name if entry else "declared", form, roles, first_id, "declared",
                   code.implementation if code else None, entry.admin_role if entry else None)


def _form_of(roles: dict[str, str]) -> UriForm:
    for role, form in (("set_batch_base_uri", "batches"), ("set_renderer_base", "renderer"),
                       ("set_base_uri", "base"), ("base_uri", "base"), ("set_token_uri", "per-token")):
        if role in roles:
            return form  # type: ignore[return-value]
    raise ProfileError("chain.profile: no role says how token URIs are formed or set (declare set_base_uri, "
                       "set_token_uri, set_batch_base_uri or set_renderer_base)")


def abi_file_functions(path: Path) -> Functions:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"chain.abi: cannot read {path}: {exc}") from None
    abi = data.get("abi") if isinstance(data, dict) else data  # a bare ABI, or an artifact that carries one
    if not isinstance(abi, list):
        raise UserError(f"chain.abi: {path} holds no ABI (a JSON list, or an object with an \"abi\" list)")
    return dict(abi_signatures(abi))


def services_for(chain: "ChainSettings") -> AbiServices | None:
    """The verified-ABI services chain.verify names (None when it is not set: nothing is asked)."""
    if chain.verify is None:
        return None
    from mintprep.base import secret_from_env

    verify = chain.verify
    return AbiServices(verify.sourcify_url, verify.etherscan_url, secret_from_env(verify.etherscan_api_key_env),
                       verify.blockscout_url)


def resolve_profile(w3: Web3, address: str, chain: "ChainSettings", base_dir: Path, chain_id: int) -> Profile:
    """The contract's profile from the first source that has one (see the module's docstring). UserError when there
    is no contract at `address`."""
    address = Web3.to_checksum_address(address)
    code = read_code(w3, address)
    if not code.code:
        raise NoContract(f"{address}: no contract at that address on this chain")
    where = f"the contract at {address}" + (f" (implementation {code.implementation})" if code.implementation else "")
    if chain.profile is not None:
        return declared_profile(chain.profile, code)
    if chain.abi is not None:
        functions = abi_file_functions(base_dir / chain.abi)
        return profile_of(family_of(functions, f"{where}, by chain.abi"), functions, "abi-file", code.implementation)
    services = services_for(chain)
    if services is not None and (verified := verified_functions(services, chain_id, code)) is not None:
        name, functions = verified
        return profile_of(family_of(functions, f"{where}, by its verified ABI ({name})"), functions, name,
                          code.implementation)
    functions = code.functions
    return profile_of(family_of(functions, f"{where}, by its runtime code"), functions, "bytecode", code.implementation)


def roles_text(profile: Profile, roles: Iterable[str] | None = None) -> str:
    """"set_base_uri=setUriPrefix(string), …": the resolved roles as `import` prints them."""
    chosen = roles if roles is not None else sorted(profile.roles)
    return ", ".join(f"{role}={profile.roles[role]}" for role in chosen if role in profile.roles)
