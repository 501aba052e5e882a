"""The contracts creators on Base already have (tests.support.platforms: each built from its publisher's source,
20 tokens, 3 broken, one of them minted), each read by role from its runtime code alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from mintprep.chain.profile import resolve_profile
from mintprep.chain.profile.contract import ProfiledContract
from mintprep.chain.settings import ChainSettings
from tests.support.platforms import FAMILIES, platforms  # noqa: F401  (the module's deployed families)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_is_recognised_from_its_code_and_serves_every_id(family: str, platforms, tmp_path: Path):
    made, _ = platforms[family]
    profile = resolve_profile(made.w3, made.address, ChainSettings(), tmp_path, 8453)
    assert profile.family == made.family  # a variant (behind a clone, a Studio proxy) is the same family
    implementation = made.extra.get("implementation")
    assert profile.implementation == (implementation.address if implementation else None)
    contract = ProfiledContract(made.w3, made.address, profile)
    minted = contract.minted_ids()
    assert set(made.minted_ids) <= set(minted)
    served = contract.served_ids(minted, 20)
    assert served == list(made.ids)
    base, owned = contract.base_uri(minted), {t: contract.token_uri(t) for t in minted}
    assert all(owned.get(t) or contract.uri_of(base, t) for t in made.ids), "every id has a URI to import"
    assert {t: owned.get(t) or contract.uri_of(base, t) for t in made.token_uris} == made.token_uris
