"""A collection's contract, by role: which of its own functions form and set token URIs, say which ids exist and
are minted, who may change them, and how the sale runs (price, limits, supply, pause, the mint call).

- `collection.contract_roles`: the role names and `Profile` (roles bound to the contract's function signatures);
- `collection.known_families`: the families mintprep knows, one declarative entry each;
- `collection.contract_signatures` / `sources`: functions read from an ABI or runtime code (evmole), through EIP-1167/1967 proxies,
  and the verified-ABI services;
- `resolve`: the profile from the first source that has one (declared, ABI file, verified ABI, runtime code);
- `contract`: reading and setting URIs through a profile, one adapter for batches and renderers.

Its face loads each name on first use (mintprep.base.lazy_face), so importing it does not import web3. `Profile`,
`ROLES` and `ProfileError` are imported from their homes (mintprep.collection, mintprep.base).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {"resolve_profile": "resolve", "roles_text": "resolve"})
