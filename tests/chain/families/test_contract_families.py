"""Contract families end to end on a real anvil (tests.support.anvil) with a local trustless gateway standing in
for the creator's IPFS node: detection, import from the address, audit of what collectors see, repair through
each family's own setter, and --print-tx for an owner that is not the configured key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain.profile import resolve_profile
from mintprep.collection.chain_settings import ChainSettings
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.reader import read_file
from mintprep.ipfs.uri import resolve
from mintprep.state.ledger import Ledger
from tests.support.breakage import broken_pngs, plant_images
from tests.support.state import state_fingerprint
from tests.chain.families.shapes import SHAPES, Shape, deploy_shape
from tests.conftest import write_collection
from tests.support.anvil import Chain


@pytest.fixture(params=sorted(SHAPES))
def case(request, tmp_path: Path, chain: Chain):
    """A family's contract with a few tokens minted, an empty collection beside it, and the creator's gateway."""
    shape: Shape = SHAPES[request.param]
    foreign, contract = deploy_shape(shape, chain, tmp_path / "their-ipfs-node")
    path = write_collection(tmp_path / "col", size=shape.size, generator__steps=3, generator__upscale=1,
                            chain__rpc_url=chain.node.url)
    server = serve_gateway(foreign.store)
    try:
        yield shape, path, foreign, contract, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def live_documents(shape: Shape, path: Path, contract) -> dict[int, tuple[bytes, bytes]]:
    """Each token id's metadata and image bytes as a collector resolves them (tokenURI of a minted id; for one
    still to mint, the minted tokens' base + id + suffix), read and verified from the collection's store."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    first = shape.minted_ids[0]
    base = contract.functions.tokenURI(first).call().removesuffix(f"{first}{shape.suffix}")
    found = {}
    for token_id in shape.ids:
        uri = (contract.functions.tokenURI(token_id).call() if token_id in shape.minted_ids
               else f"{base}{token_id}{shape.suffix}")
        document = read_file(resolve(uri, fetch), fetch)
        found[token_id] = (document, read_file(resolve(json.loads(document)["image"], fetch), fetch))
    return found


def test_audit_names_the_broken_tokens_and_repair_spares_the_minted_ones(case, chain: Chain,
                                                                        monkeypatch: pytest.MonkeyPatch):
    shape, path, foreign, contract, gateway = case
    assert resolve_profile(chain.w3, contract.address, ChainSettings(), path.parent, 8453).family == shape.family
    code, imported = cli("import", str(path), "--from", contract.address, "--gateway", gateway)
    assert code == 0, imported
    assert imported["family"] == shape.family and imported["minted"] == shape.minted_ids
    assert {t["token_id"]: t["image_cid"] for t in imported["imported"]} == foreign.image_cids
    minted_broken = sorted(set(shape.broken) & set(shape.minted_ids))
    unminted_broken = sorted(set(shape.broken) - set(shape.minted_ids))

    code, audit = cli("audit", str(path))

    assert code == 1 and audit["family"] == shape.family
    assert {(p["token_id"], p["kind"]) for p in audit["problems"]} == {(t, "image-broken") for t in shape.broken}
    assert sorted(p["token_id"] for p in audit["problems"] if p["minted"]) == minted_broken
    assert audit["live_broken"] == sorted(shape.broken)
    before = live_documents(shape, path, contract)

    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    code, repaired = cli("audit", str(path), "--repair")

    assert "plan" in repaired, repaired
    assert sorted(t["token_id"] for t in (repaired["plan"] or {}).get("tokens", [])) == unminted_broken, repaired
    after = live_documents(shape, path, contract)  # every id resolves from what the contract now says
    assert {t: after[t] for t in shape.minted_ids} == {t: before[t] for t in shape.minted_ids}
    assert all(after[t][1] != before[t][1] for t in unminted_broken)
    code, audit = cli("audit", str(path))
    assert {p["token_id"] for p in audit["problems"]} == set(minted_broken)

    code, included = cli("audit", str(path), "--repair", "--include-minted")

    assert code == 0 and sorted(t["token_id"] for t in included["plan"]["tokens"]) == minted_broken, included
    final = live_documents(shape, path, contract)
    assert all(final[t][1] != before[t][1] for t in minted_broken)
    healthy_minted = [t for t in shape.minted_ids if t not in shape.broken]
    assert {t: final[t] for t in healthy_minted} == {t: before[t] for t in healthy_minted}
    assert cli("audit", str(path))[0] == 0


@pytest.mark.parametrize("case", ["hashlips-simple", "uri-storage"], indirect=True)  # a base URI; per-token URIs
def test_an_owner_that_is_not_the_key_gets_every_transaction_printed_and_nothing_is_sent(
        case, chain: Chain, monkeypatch: pytest.MonkeyPatch):
    shape, path, _foreign, contract, gateway = case
    assert cli("import", str(path), "--from", contract.address, "--gateway", gateway)[0] == 0
    safe = chain.accounts[2].address  # the owner's wallet mintprep holds no key for (a Safe, a hardware wallet)
    contract.functions.transferOwnership(safe).transact({"from": chain.owner.address})
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    block = chain.w3.eth.block_number

    code, refused = cli("audit", str(path), "--repair", "--include-minted")
    assert code == 2 and safe in refused["error"]["message"] and "--print-tx" in refused["error"]["message"]

    code, printed = cli("audit", str(path), "--repair", "--include-minted", "--print-tx")

    assert code == 1 and printed["status"] == "awaiting-base-uri", printed
    assert chain.w3.eth.block_number == block, "nothing was sent"
    decoded = [(tx["to"], *contract.decode_function_input(tx["data"])) for tx in printed["transactions"]]
    with Ledger.open(load_collection(path).state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest().manifest
    if shape.family == "uri-storage":
        expected = [("setTokenURI", {"tokenId": t, "uri": f"ipfs://{manifest.by_token()[t].metadata_cid}"})
                    for t in sorted(shape.broken)]
    else:
        expected = [("setBaseURI", {"_newBaseURI": f"ipfs://{manifest.metadata_root}/"})]  # SimpleNft's own name
    assert [(to, function.fn_name, args) for to, function, args in decoded] == \
        [(contract.address, name, args) for name, args in expected]
    assert all(tx["value"] == 0 and tx["function"].startswith(name) and tx["args"] == list(args.values())
               for tx, (name, args) in zip(printed["transactions"], expected))

    code, waiting = cli("audit", str(path))  # the ledger has moved on; collectors still see the broken tokens
    assert code == 1 and waiting["live_broken"] == sorted(shape.broken)

    for tx in printed["transactions"]:  # the owner sends them from its own wallet; the next run finishes
        sent = chain.w3.eth.send_transaction({"from": safe, "to": tx["to"], "data": tx["data"]})
        assert chain.w3.eth.wait_for_transaction_receipt(sent)["status"] == 1
    code, done = cli("audit", str(path), "--repair", "--print-tx")
    assert code == 0 and done["status"] == "repaired", done


@pytest.mark.parametrize("case", ["erc721a"], indirect=True)
def test_a_contract_without_a_setter_its_owner_can_call_is_left_alone(case, chain: Chain,
                                                                      monkeypatch: pytest.MonkeyPatch):
    shape, path, _foreign, contract, gateway = case
    assert cli("import", str(path), "--from", contract.address, "--gateway", gateway)[0] == 0
    contract.functions.renounceOwnership().transact({"from": chain.owner.address})
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    before, block = state_fingerprint(path), chain.w3.eth.block_number

    code, outcome = cli("audit", str(path), "--repair", "--include-minted", "--print-tx")

    assert code == 1 and outcome["status"] == "no-setter" and "nothing was changed" in outcome["error"], outcome
    assert state_fingerprint(path) == before and chain.w3.eth.block_number == block


@pytest.mark.parametrize("case", ["hashlips-simple"], indirect=True)
def test_audit_judges_what_collectors_see_and_the_unpublished_ledger_apart(case, chain: Chain):
    """The ledger moves on (an older mintprep, a hand upload: token 4 replaced by a black image, published to no
    contract): audit still names the tokens broken on chain, and the ledger's own broken piece as not published."""
    shape, path, _foreign, contract, gateway = case
    assert cli("import", str(path), "--from", contract.address, "--gateway", gateway)[0] == 0
    plant_images(path, {4: broken_pngs(load_collection(path))["black"]})

    code, audit = cli("audit", str(path), "--gateway", gateway)

    assert code == 1
    live = {(p["token_id"], p["kind"]) for p in audit["problems"] if p["where"] == "live"}
    assert live == {(t, "image-broken") for t in shape.broken} and audit["live_broken"] == sorted(shape.broken)
    unpublished = {(p["token_id"], p["kind"]) for p in audit["problems"] if p["where"] == "not-yet-published"}
    assert (4, "image-broken") in unpublished and 4 not in audit["live_broken"]
    assert any(p["kind"] == "chain-base-uri-stale" for p in audit["problems"])
