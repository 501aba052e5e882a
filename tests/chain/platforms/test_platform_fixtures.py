"""The platform fixtures (tests.support.platforms) are what they claim: each family's contract, built from its
publisher's source, deployed on anvil with chain id 8453, serves the 20-token collection from the creator's IPFS
node, the collector holds the minted tokens, and the family's own admin setter (and only the admin) moves a URI.

Deployed once per module (a rolled-back snapshot of the session's anvil); each test's changes are rolled back by
the `chain` fixture. Deploy times are printed (`-s`) and recorded as the test's `deploy_seconds` property."""

from __future__ import annotations

import json

import pytest
from web3.exceptions import ContractLogicError

from mintprep.ipfs.reader import read_file
from mintprep.ipfs.uri import resolve
from tests.support.anvil import BASE_CHAIN_ID, Chain
from tests.support.platforms import FAMILIES, PlatformCollection, add_encrypted_batch, freeze_batch
from tests.support.platforms import platforms  # noqa: F401  (module-scoped: every family deployed once)

EIP1967_IMPLEMENTATION_SLOT = 0x360894A13BA1A3210667C828492DB98DCA3E2076CC3735A920A3CA505D382BBC


@pytest.fixture(params=sorted(FAMILIES))
def platform(request, platforms, chain: Chain, record_property) -> PlatformCollection:
    made, seconds = platforms[request.param]
    record_property("deploy_seconds", round(seconds, 2))
    return made


def fetch_document(made: PlatformCollection, uri: str) -> dict:
    fetch = made.foreign.store.get
    return json.loads(read_file(resolve(uri, fetch), fetch))


def test_every_served_token_uri_resolves_to_its_document(platform: PlatformCollection):
    made = platform
    assert made.w3.eth.chain_id == BASE_CHAIN_ID
    assert made.token_uris, "the family serves no token at all"
    for token_id in made.ids:
        if token_id in made.token_uris:
            uri = made.contract.functions.tokenURI(token_id).call()
            assert uri == made.token_uris[token_id]
            assert fetch_document(made, uri) == made.foreign.documents[token_id]
        else:  # not minted, and the family answers only for minted tokens
            with pytest.raises(ContractLogicError):
                made.contract.functions.tokenURI(token_id).call()
    # Every token, served yet or not, has its file where the contract will point collectors.
    for token_id in made.ids:
        uri = made.token_uris.get(token_id) or f"{made.bases[0]}{token_id}{made.suffix}"
        assert fetch_document(made, uri) == made.foreign.documents[token_id]


def test_the_collector_holds_the_minted_tokens_and_the_admin_the_rest(platform: PlatformCollection):
    made = platform
    owner_of = made.contract.functions.ownerOf
    assert made.admin.address != made.collector.address
    assert [owner_of(t).call() for t in made.minted_ids] == [made.collector.address] * 3
    assert [owner_of(t).call() for t in made.held_ids] == [made.admin.address] * len(made.held_ids)
    assert made.contract.functions.balanceOf(made.collector.address).call() == 3
    assert set(made.broken) & set(made.minted_ids) and len(made.broken) == 3


def _set_base(made: PlatformCollection, base: str):
    """The family's own admin call that moves token `made.minted_ids[0]`'s URI under `base`."""
    functions, first = made.contract.functions, made.minted_ids[0]
    suffix = made.suffix
    return {
        "hashlips-simple": lambda: functions.setBaseURI(base),
        "hashlips-lower-gas": lambda: functions.setUriPrefix(base),
        "erc721a": lambda: functions.setBaseURI(base),
        "uri-storage": lambda: functions.setTokenURI(first, f"{base}{first}{suffix}"),
        "mintprep-drop": lambda: functions.setBaseURI(base, ""),
        "thirdweb-drop": lambda: functions.updateBatchBaseURI(0, base),
        "zora-drop": lambda: made.renderer.functions.updateMetadataBase(made.address, base, ""),
        "manifold-creator": lambda: functions.setBaseTokenURI(base),
    }[made.family]()


def test_the_admin_setter_moves_the_uri_and_the_collector_cannot(platform: PlatformCollection):
    made = platform
    first, suffix = made.minted_ids[0], made.suffix
    moved = f"ipfs://{made.foreign.images_root}/moved/"
    with pytest.raises(ContractLogicError):
        _set_base(made, moved).transact({"from": made.collector.address})
    assert made.contract.functions.tokenURI(first).call() == made.token_uris[first]
    made.transact(_set_base(made, moved))
    assert made.contract.functions.tokenURI(first).call() == f"{moved}{first}{suffix}"


def test_thirdweb_batches_each_have_their_base_and_a_frozen_one_refuses(platforms, chain: Chain):
    made, _ = platforms["thirdweb-drop"]
    functions = made.contract.functions
    assert functions.getBaseURICount().call() == 2 and len(set(made.bases)) == 2
    assert [functions.getBatchIdAtIndex(i).call() for i in range(2)] == [10, 20]
    assert functions.tokenURI(9).call() == f"{made.bases[0]}9" and functions.tokenURI(10).call() == f"{made.bases[1]}10"
    freeze_batch(made, 0)
    with pytest.raises(ContractLogicError):
        functions.updateBatchBaseURI(0, "ipfs://elsewhere/").transact({"from": made.admin.address})
    made.transact(functions.updateBatchBaseURI(1, "ipfs://elsewhere/"))
    assert functions.tokenURI(10).call() == "ipfs://elsewhere/10" and functions.tokenURI(9).call() == f"{made.bases[0]}9"


def test_thirdweb_encrypted_batch_shows_its_placeholder_until_revealed(platforms, chain: Chain):
    made, _ = platforms["thirdweb-drop"]
    functions, key = made.contract.functions, b"creator's secret"
    index = add_encrypted_batch(made, 5, "ipfs://placeholder/", made.bases[1], key)
    assert index == 2 and functions.isEncryptedBatch(functions.getBatchIdAtIndex(index).call()).call()
    assert functions.tokenURI(22).call() == "ipfs://placeholder/0"
    with pytest.raises(ContractLogicError):
        functions.updateBatchBaseURI(index, "ipfs://elsewhere/").transact({"from": made.admin.address})
    made.transact(functions.reveal(index, key))
    assert functions.tokenURI(22).call() == f"{made.bases[1]}22"


@pytest.mark.parametrize("family", ["thirdweb-drop", "zora-drop", "manifold-creator@studio-proxy"])
def test_proxies_name_their_implementation_in_the_eip1967_slot(platforms, family: str):
    made, _ = platforms[family]
    slot = made.w3.eth.get_storage_at(made.address, EIP1967_IMPLEMENTATION_SLOT)
    assert slot[-20:] == bytes.fromhex(made.extra["implementation"].address[2:])
    assert len(made.w3.eth.get_code(made.address)) < 1_000 < len(made.w3.eth.get_code(slot[-20:]))


def test_the_thirdweb_clone_is_the_45_byte_eip1167_proxy(platforms):
    made, _ = platforms["thirdweb-drop@eip1167-clone"]
    implementation = bytes.fromhex(made.extra["implementation"].address[2:])
    assert made.w3.eth.get_code(made.address) == bytes.fromhex("363d3d373d3d3d363d73") + implementation + \
        bytes.fromhex("5af43d82803e903d91602b57fd5bf3")
    assert made.contract.functions.hasRole(b"\x00" * 32, made.admin.address).call()  # initialised once, by the admin


def test_zora_base_lives_on_the_renderer(platforms, chain: Chain):
    made, _ = platforms["zora-drop"]
    base, extension, contract_uri, freeze_at = made.renderer.functions.metadataBaseByContract(made.address).call()
    assert (base, extension, freeze_at) == (made.bases[0], "", 0)
    assert made.contract.functions.metadataRenderer().call() == made.renderer.address
    # The drop claims ERC-4906 (metadata update events) though it stores no per-token URI: evidence, not proof.
    assert made.contract.functions.supportsInterface(bytes.fromhex("49064906")).call()
    sale = made.contract.functions.saleDetails().call()
    assert sale[0] is True and sale[-2] == 3  # publicSaleActive, totalMinted


def test_manifold_token_with_its_own_uri_ignores_the_base(platforms, chain: Chain):
    made, _ = platforms["manifold-creator"]
    own = made.ids[-1]
    made.transact(made.contract.functions.setBaseTokenURI("ipfs://elsewhere/"))
    assert made.contract.functions.tokenURI(own).call() == made.token_uris[own]
    assert made.contract.functions.tokenURI(1).call() == "ipfs://elsewhere/1"
