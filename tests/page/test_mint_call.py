"""The page's mint description, mapped from a contract profile (no chain: the browser tests in
test_platform_mint.py run these descriptions against each family's contract)."""

from __future__ import annotations

import pytest
from eth_utils import keccak

from mintprep.collection.known_families import BY_NAME
from mintprep.collection.contract_roles import Profile
from mintprep.base import PageCannotMint
from mintprep.page.mint_call import mint_description

URL = "https://app.manifold.xyz/c/sunflower-study"


def known(family: str, **roles: str) -> Profile:
    entry = BY_NAME[family]
    return Profile(entry.name, entry.uri_form, {**entry.roles, **entry.renderer_roles, **roles}, entry.first_id,
                   "bytecode")


@pytest.mark.parametrize("family, call", [
    ("mintprep-drop", "mint(uint256,uint256,bytes32[])"), ("hashlips-simple", "mint(uint256)"),
    ("hashlips-lower-gas", "mint(uint256)"), ("zora-drop", "purchase(uint256)"),
    ("thirdweb-drop", "claim(address,uint256,address,uint256,(bytes32[],uint256,uint256,address),bytes)")])
def test_each_family_with_a_public_mint_gets_its_own_call_and_every_function_it_names(family: str, call: str):
    described = mint_description(known(family))
    assert described["family"] == family and described["elsewhere"] is None
    assert described["mint"]["call"] == call
    named = {described["mint"]["call"], *(r["call"] for r in described["reads"] + described["mint"]["reads"]
                                           + described["phases"]["reads"]
                                           + (described["wallet"] or {"reads": []})["reads"])}
    assert named == set(described["functions"])
    for signature, fragment in described["functions"].items():
        assert fragment["selector"] == "0x" + keccak(text=signature)[:4].hex()
        assert signature.startswith(fragment["name"] + "(")


def test_hashlips_pays_cost_times_quantity_and_caps_each_call():
    described = mint_description(known("hashlips-lower-gas"))
    assert described["mint"]["args"] == [["get", "qty"]]
    assert described["mint"]["value"] == ["mul", ["get", "price"], ["get", "qty"]]
    reads = {r["as"]: r["call"] for r in described["reads"]}
    assert reads == {"price": "cost()", "max": "maxSupply()", "minted": "totalSupply()", "paused": "paused()",
                     "per_tx": "maxMintAmountPerTx()"}
    assert described["phases"]["per_tx"] == ["get", "per_tx"] and described["phases"]["per_wallet"] is None


def test_a_declared_quantity_mint_works_like_hashlips():
    declared = Profile("declared", "base", {"mint": "mint(uint256)", "price": "price()", "max_supply": "MAX()",
                                            "total_supply": "totalSupply()", "max_per_wallet": "walletCap()"},
                       1, "declared")
    described = mint_description(declared)
    assert {r["as"]: r["call"] for r in described["reads"]} == {
        "price": "price()", "max": "MAX()", "minted": "totalSupply()", "per_wallet": "walletCap()"}
    assert described["paused"] is None and described["phases"]["per_tx"] is None


@pytest.mark.parametrize("family", ["manifold-creator", "erc721a", "uri-storage"])
def test_a_family_without_a_mint_the_page_can_make_links_to_mint_url_or_is_refused(family: str):
    assert mint_description(known(family), URL) == {
        "family": family, "elsewhere": {"url": URL, "reason": f"the {family} contract has no public mint function "
                                                              "the page can call"}}
    with pytest.raises(PageCannotMint, match="page.mint_url") as refused:
        mint_description(known(family))
    assert refused.value.exit_code == 1


def test_a_mint_call_the_page_cannot_make_or_a_missing_read_is_named():
    with pytest.raises(PageCannotMint, match=r"cannot make the declared contract's mint call mint\(address,uint256\)"):
        mint_description(Profile("declared", "base", {"mint": "mint(address,uint256)"}, 1, "declared"))
    lacking = known("hashlips-lower-gas")
    del lacking.roles["price"]
    with pytest.raises(PageCannotMint, match=r"lacks what the page reads for mint\(uint256\): price"):
        mint_description(lacking)
