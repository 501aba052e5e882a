"""`contract set-base-uri` on contracts mintprep did not deploy (tests.support.platforms: the publisher's own
contract on anvil, 20 tokens, 3 broken, one of them sold): the calls come from the contract's profile, the same
ones a repair sends (HashLips' setUriPrefix, thirdweb's updateBatchBaseURI per batch, the Zora renderer's
updateMetadataBase, Manifold's setBaseTokenURI), never MintprepDrop's setBaseURI(string,string); `--print` sends nothing, a real send moves an
unminted token to the new root and leaves every sold token's document and image byte-identical; a frozen batch is
refused by name, nothing sent.

The new root is the one a repair published and is waiting to point the contract at (`--print-tx` for a key that is
not the admin's)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli.app import app
from mintprep.ipfs.gateway import serve_gateway
from tests.chain.contract_profile.test_platform_repair import cli, live, token_uri
from tests.conftest import write_collection
from tests.support.anvil import AnvilNode, Chain, rolled_back
from tests.support.platforms import SIZE, THIRDWEB_BATCH, PlatformCollection, deploy_platform, freeze_batch

FAMILIES = ("hashlips-lower-gas", "thirdweb-drop", "zora-drop", "manifold-creator")


@pytest.fixture(scope="module")
def deployed(anvil_node: AnvilNode, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[dict[str, PlatformCollection]]:
    with rolled_back(anvil_node) as chain:
        yield {name: deploy_platform(name, chain, tmp_path_factory.mktemp(name)) for name in FAMILIES}


@pytest.fixture
def imported(request, deployed, chain: Chain, tmp_path: Path):
    """The family's collection imported from its contract."""
    made = deployed[request.param]
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1,
                            chain__rpc_url=chain.node.url)
    server = serve_gateway(made.foreign.store)
    try:
        code, result = cli("import", str(path), "--from", made.address, "--gateway",
                           f"http://127.0.0.1:{server.server_address[1]}")
        assert code == 0, result
        yield made, path
    finally:
        server.shutdown()


def repair_awaiting(path: Path, chain: Chain, monkeypatch: pytest.MonkeyPatch, *flags: str) -> str:
    """A repair of the broken tokens, published and waiting for the admin's call: the new base URI."""
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.accounts[2].key.hex())  # not the admin
    code, waiting = cli("audit", str(path), "--repair", "--print-tx", *flags)
    assert code == 1 and waiting["status"] == "awaiting-base-uri", waiting
    monkeypatch.delenv(PRIVATE_KEY_ENV)
    return waiting["base_uri_update"]["base_uri"]


def expected_calls(made: PlatformCollection, base: str) -> list[tuple[str, list]]:
    """The family's own call(s) pointing every token at `base`, as (function, arguments in order)."""
    if made.family == "hashlips-lower-gas":
        return [("setUriPrefix", [base])]
    if made.family == "manifold-creator":
        return [("setBaseTokenURI", [base])]
    if made.family == "thirdweb-drop":  # every batch: the collection's ids end at 10 and 20
        return [("updateBatchBaseURI", [index, base]) for index in range(SIZE // THIRDWEB_BATCH)]
    return [("updateMetadataBase", [made.address, base, f"{base}collection.json"])]  # sent to the renderer


def decoded(made: PlatformCollection, calls: list[dict]) -> list[tuple[str, list]]:
    target = made.renderer or made.contract
    assert all(call["to"] == target.address and call["value"] == 0 for call in calls), calls
    found = []
    for call in calls:
        function, args = target.decode_function_input(call["data"])
        assert call["function"].startswith(f"{function.fn_name}(")  # what --print names is what the data says
        found.append((function.fn_name, list(args.values())))
    return found


@pytest.mark.parametrize("imported", FAMILIES, indirect=True)
def test_set_base_uri_prints_and_sends_the_familys_own_setter(imported, chain: Chain,
                                                             monkeypatch: pytest.MonkeyPatch):
    made, path = imported
    base = repair_awaiting(path, chain, monkeypatch)
    sold = sorted(made.minted_ids)
    unminted = next(t for t in sorted(made.broken) if t not in sold)
    before = live(made, path, sold)
    block = chain.w3.eth.block_number

    code, printed = cli("contract", "set-base-uri", str(path), "--print")

    assert code == 0, printed
    assert chain.w3.eth.block_number == block, "--print sends nothing"
    assert printed["family"] == made.family and printed["base_uri"] == base and printed["tx_hashes"] == []
    assert decoded(made, printed["calls"]) == expected_calls(made, base)
    assert "6790a9de" not in "".join(call["data"][:10] for call in printed["calls"])  # not MintprepDrop's setBaseURI
    text = CliRunner().invoke(app, ["contract", "set-base-uri", str(path), "--print"])
    assert text.exit_code == 0 and f"data: {printed['calls'][0]['data']}" in text.stdout
    assert not token_uri(made, unminted).startswith(base)

    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())  # the admin
    code, sent = cli("contract", "set-base-uri", str(path))

    assert code == 0, sent
    assert len(sent["tx_hashes"]) == len(expected_calls(made, base))
    for tx_hash in sent["tx_hashes"]:
        assert chain.w3.eth.get_transaction_receipt(tx_hash)["status"] == 1
    assert token_uri(made, unminted).startswith(base)  # collectors of an unminted token now see the new root
    assert live(made, path, sold) == before, "every sold token's document and image byte-identical"
    code, again = cli("contract", "set-base-uri", str(path), "--print")
    assert code == 0 and again["calls"] == [], again  # the chain already says it


@pytest.mark.parametrize("imported", ["thirdweb-drop"], indirect=True)
def test_set_base_uri_refuses_a_frozen_batch_by_name(imported, chain: Chain, monkeypatch: pytest.MonkeyPatch):
    made, path = imported
    repair_awaiting(path, chain, monkeypatch)
    freeze_batch(made, 1)
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    block = chain.w3.eth.block_number

    for print_only in ([], ["--print"]):
        code, refused = cli("contract", "set-base-uri", str(path), *print_only)

        assert code == 2, refused
        assert "updateBatchBaseURI(uint256,string) refuses batch(es) 1 (frozen)" in refused["error"]["message"]
        assert "nothing was sent" in refused["error"]["message"]
    assert chain.w3.eth.block_number == block


@pytest.mark.parametrize("imported", ["hashlips-lower-gas", "thirdweb-drop"], indirect=True)
def test_a_root_that_changes_a_sold_token_is_refused_unless_include_minted(imported, chain: Chain,
                                                                          monkeypatch: pytest.MonkeyPatch):
    """A repair with --include-minted replaced the broken sold token: `set-base-uri` refuses that root naming the
    token (on thirdweb through the moved batch that holds it), and prints its calls with --include-minted."""
    made, path = imported
    (sold_broken,) = sorted(set(made.broken) & set(made.minted_ids))
    base = repair_awaiting(path, chain, monkeypatch, "--include-minted")
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    block = chain.w3.eth.block_number

    code, refused = cli("contract", "set-base-uri", str(path))

    assert code == 2, refused
    assert f"minted token(s) {sold_broken}" in refused["error"]["message"]
    assert chain.w3.eth.block_number == block
    code, printed = cli("contract", "set-base-uri", str(path), "--print", "--include-minted")
    assert code == 0 and decoded(made, printed["calls"]) == expected_calls(made, base), printed
