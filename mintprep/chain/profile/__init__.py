"""A collection's contract, by role: which of its own functions form and set token URIs, say which ids exist and
are minted, who may change them, and how the sale runs (price, limits, supply, pause, the mint call).

- `roles`: the role names and `Profile` (roles bound to the contract's function signatures);
- `known`: the families mintprep knows, one declarative entry each;
- `signatures` / `sources`: functions read from an ABI or runtime code (evmole), through EIP-1167/1967 proxies,
  and the verified-ABI services;
- `resolve`: the profile from the first source that has one (declared, ABI file, verified ABI, runtime code);
- `contract`: reading and setting URIs through a profile, one adapter for batches and renderers.
"""

from mintprep.chain.profile.resolve import ProfileError, resolve_profile, roles_text
from mintprep.chain.profile.roles import ROLES, Profile

__all__ = ["ROLES", "Profile", "ProfileError", "resolve_profile", "roles_text"]
