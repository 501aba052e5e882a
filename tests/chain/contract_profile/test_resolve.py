"""Where a contract's profile comes from, and that every source agrees: the declared profile (chain.profile), the
contract's verified ABI (a local stand-in for Sourcify APIv2 answering `GET /v2/contract/{chainId}/{address}
?fields=abi` as its documentation shows), and the selectors in its runtime code (evmole), through EIP-1167 and
EIP-1967 proxies. The contracts are the committed artifacts (MintprepDrop, and the family shapes compiled from
contracts/test/families), deployed on a real anvil."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from web3 import Web3

from mintprep.chain.artifact import load_artifact
from mintprep.base import ProfileError
from mintprep.chain.profile import resolve_profile
from mintprep.chain.profile.resolve import declared_profile, family_of, profile_of
from mintprep.collection.contract_signatures import abi_signatures, checked_signature, selector
from mintprep.chain.profile.sources import BEACON_SLOT, IMPLEMENTATION_SLOT, ContractCode
from mintprep.collection.chain_settings import ChainSettings, ProfileSettings
from tests.support.anvil import TEST_ARTIFACTS as ARTIFACTS, deploy_artifact
from tests.support.anvil import Chain
from tests.support.servers import JsonHandler, http_server

# artifact -> (family, its own function that sets URIs)
SHAPES = {"MintprepDrop": ("mintprep-drop", "setBaseURI(string,string)"),
          "SimpleNft": ("hashlips-simple", "setBaseURI(string)"),
          "AzukiStyle": ("erc721a", "setBaseURI(string)"),
          "PerTokenURIs": ("uri-storage", "setTokenURI(uint256,string)")}


def artifact(name: str):
    return load_artifact() if name == "MintprepDrop" else load_artifact(name, ARTIFACTS)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_runtime_code_an_abi_and_a_declaration_give_the_same_roles(name: str):
    built = artifact(name)
    from_code = ContractCode("0x" + "11" * 20, bytes.fromhex(built.deployed_bytecode[2:])).functions
    from_abi = abi_signatures(built.abi)
    assert set(from_code) == set(from_abi), "evmole recovers every dispatched function of the artifact"

    by_code = profile_of(family_of(from_code, name), from_code, "bytecode")
    by_abi = profile_of(family_of(from_abi, name), from_abi, "sourcify")
    declared = declared_profile(ProfileSettings(roles=by_abi.roles))

    family, setter = SHAPES[name]
    assert by_code.family == by_abi.family == declared.family == family
    assert by_code.roles == by_abi.roles == declared.roles
    assert setter in by_code.uri_setters().values()
    assert by_code.uri_form == declared.uri_form and by_code.first_id == declared.first_id


def test_a_contract_with_no_setter_mintprep_knows_is_refused_naming_how_to_declare_it():
    plain = {selector(s): s for s in ("ownerOf(uint256)", "tokenURI(uint256)", "setMetadataRoot(bytes32)")}
    with pytest.raises(ProfileError) as refused:
        family_of(plain, "the contract at 0xabc")
    assert refused.value.exit_code == 2
    assert "setUriPrefix(string)" in str(refused.value) and "chain.profile" in str(refused.value)


def test_two_families_that_do_not_contain_each_other_are_ambiguous_not_guessed():
    both = {selector(s): s for s in ("ownerOf(uint256)", "tokenURI(uint256)", "getBaseURICount()",
                                     "getBatchIdAtIndex(uint256)", "updateBatchBaseURI(uint256,string)",
                                     "metadataRenderer()", "salesConfig()", "purchase(uint256)")}
    with pytest.raises(ProfileError, match="thirdweb-drop and zora-drop alike.*chain.profile: {family: "):
        family_of(both, "here")


def test_erc165_answers_are_not_a_family():
    """The HashLips shape and Zora's drop both answer ERC-4906 in the wild; only functions decide."""
    functions = abi_signatures(artifact("SimpleNft").abi)
    assert family_of(functions, "x").name == "hashlips-simple"
    assert selector("supportsInterface(bytes4)") in functions  # evidence it has, never consulted for the family


@pytest.mark.parametrize("text, fault", [("setBaseURI(string memory uri)", "not a function signature"),
                                         ("setCost(uint)", "write uint256"), ("setBaseURI", "not a function")])
def test_a_declared_signature_must_be_canonical(text: str, fault: str):
    with pytest.raises(ValueError, match=fault):
        checked_signature(text)


def test_a_declared_role_mintprep_does_not_know_is_a_config_error():
    with pytest.raises(ValueError, match="unknown role 'set_uri'"):
        ProfileSettings(roles={"set_uri": "setUriPrefix(string)"})
    with pytest.raises(ValueError, match="unknown family 'opensea'"):
        ProfileSettings(family="opensea")


# -- on anvil: the sources in order, through proxies --------------------------------------------------

def sourcify_stand_in(abis: dict[str, list], asked: list[str]):
    class Sourcify(JsonHandler):
        def do_GET(self):  # noqa: N802  (stdlib name)
            url = urlparse(self.path)
            asked.append(self.path)
            parts = url.path.strip("/").split("/")  # v2/contract/{chainId}/{address}
            if parts[:2] != ["v2", "contract"] or len(parts) != 4 or parse_qs(url.query).get("fields") != ["abi"]:
                return self.reply_json(400, {"customCode": "bad_request", "message": "unsupported"})
            abi = abis.get(parts[3].lower())
            if abi is None or parts[2] != "8453":
                return self.reply_json(404, {"customCode": "not_found", "message": "Contract not found"})
            self.reply_json(200, {"abi": abi, "match": "exact_match", "creationMatch": "exact_match",
                                  "runtimeMatch": "exact_match", "chainId": parts[2], "address": parts[3]})
    return Sourcify


def deploy_runtime(chain: Chain, runtime: bytes) -> str:
    """A contract whose runtime code is exactly `runtime` (a creation stub that returns it)."""
    stub = bytes.fromhex("61%04x80600c6000396000f3" % len(runtime)) + runtime
    tx = chain.w3.eth.send_transaction({"from": chain.owner.address, "data": "0x" + stub.hex()})
    return chain.w3.eth.wait_for_transaction_receipt(tx)["contractAddress"]


def test_bytecode_and_a_verified_abi_resolve_what_the_declaration_says(chain: Chain, tmp_path: Path):
    azuki = deploy_artifact(chain, "AzukiStyle", "ipfs://bafkqaaa/")
    asked: list[str] = []
    by_code = resolve_profile(chain.w3, azuki.address, ChainSettings(), tmp_path, 8453)
    with http_server(sourcify_stand_in({azuki.address.lower(): artifact("AzukiStyle").abi}, asked)) as url:
        verify = {"sourcify_url": url}
        by_service = resolve_profile(chain.w3, azuki.address, ChainSettings(verify=verify), tmp_path, 8453)
        declared = resolve_profile(chain.w3, azuki.address, ChainSettings(
            verify=verify, profile={"roles": by_service.roles}), tmp_path, 8453)
    (tmp_path / "azuki.abi.json").write_text(json.dumps(artifact("AzukiStyle").abi))
    by_file = resolve_profile(chain.w3, azuki.address, ChainSettings(abi="azuki.abi.json"), tmp_path, 8453)
    assert (by_code.source, by_service.source, declared.source, by_file.source) == \
        ("bytecode", "sourcify", "declared", "abi-file")
    assert by_code.roles == by_service.roles == declared.roles == by_file.roles
    assert by_code.family == by_service.family == by_file.family == "erc721a"
    assert asked == [f"/v2/contract/8453/{azuki.address}?fields=abi"], "declared: no service asked"


def test_a_service_without_the_contract_falls_back_to_its_code(chain: Chain, tmp_path: Path):
    hashlips = deploy_artifact(chain, "SimpleNft", "HashLips Shape", "HLS", "ipfs://bafkqaaa/", "", 6)
    with http_server(sourcify_stand_in({}, [])) as url:
        profile = resolve_profile(chain.w3, hashlips.address, ChainSettings(verify={"sourcify_url": url}),
                                  tmp_path, 8453)
    assert (profile.family, profile.source) == ("hashlips-simple", "bytecode")


def test_a_declared_function_the_contract_lacks_is_refused(chain: Chain, tmp_path: Path):
    azuki = deploy_artifact(chain, "AzukiStyle", "ipfs://bafkqaaa/")
    with pytest.raises(ProfileError, match=r"set_base_uri: setUriPrefix\(string\)"):
        resolve_profile(chain.w3, azuki.address, ChainSettings(profile={"roles": {
            "set_base_uri": "setUriPrefix(string)"}}), tmp_path, 8453)


def test_proxies_are_followed_to_their_implementation(chain: Chain, tmp_path: Path):
    implementation = deploy_artifact(chain, "PerTokenURIs")
    target = bytes.fromhex(implementation.address[2:])
    clone = deploy_runtime(chain, bytes.fromhex("363d3d373d3d3d363d73") + target
                           + bytes.fromhex("5af43d82803e903d91602b57fd5bf3"))
    # An EIP-1967 proxy: code that dispatches no function itself, the implementation in its slot (only the slot
    # is read); a beacon proxy: the beacon's implementation() answers the address (any call, here).
    proxy = deploy_runtime(chain, bytes.fromhex("60006000f3"))
    chain.w3.provider.make_request("anvil_setStorageAt", [proxy, hex(IMPLEMENTATION_SLOT),
                                                          "0x" + target.rjust(32, b"\0").hex()])
    beacon = deploy_runtime(chain, bytes.fromhex("7f") + target.rjust(32, b"\0") + bytes.fromhex("60005260206000f3"))
    beacon_proxy = deploy_runtime(chain, bytes.fromhex("60006000f3"))
    chain.w3.provider.make_request("anvil_setStorageAt", [beacon_proxy, hex(BEACON_SLOT),
                                                          "0x" + bytes.fromhex(beacon[2:]).rjust(32, b"\0").hex()])
    for address in (clone, proxy, beacon_proxy):
        profile = resolve_profile(chain.w3, address, ChainSettings(), tmp_path, 8453)
        assert (profile.family, profile.implementation) == ("uri-storage", implementation.address), address
    direct = resolve_profile(chain.w3, implementation.address, ChainSettings(), tmp_path, 8453)
    assert direct.implementation is None and direct.roles == profile.roles
    assert Web3.is_checksum_address(profile.implementation)
