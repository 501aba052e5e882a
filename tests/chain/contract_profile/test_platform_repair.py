"""Each family creators on Base use, end to end on anvil (tests.support.platforms: the publisher's own contract,
20 tokens on the creator's IPFS node behind a local trustless gateway, 3 broken, one of them minted and sold):
import maps every id with its published image; audit names exactly the broken tokens, the sold one flagged; a
default repair sends only the family's own setter call(s) and leaves every sold token's live document and image
byte-identical; `--print-tx` for an admin whose key mintprep lacks decodes to those calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.reader import read_file
from mintprep.ipfs.uri import resolve
from tests.conftest import write_collection
from tests.support.anvil import Chain
from tests.support.platforms import (FAMILIES, SIZE, PlatformCollection, add_encrypted_batch, freeze_batch,  # noqa: F401
                                     platforms)

# family -> the setter(s) a default repair sends (to the token contract, or to Zora's renderer)
SETTERS = {"hashlips-lower-gas": {"setUriPrefix"}, "hashlips-simple": {"setBaseURI"},
           "thirdweb-drop": {"updateBatchBaseURI"}, "erc721a": {"setBaseURI"}, "mintprep-drop": {"setBaseURI"},
           "zora-drop": {"updateMetadataBase"}, "uri-storage": {"setTokenURI"},
           "manifold-creator": {"setBaseTokenURI"}}


@pytest.fixture
def case(request, platforms, chain: Chain, tmp_path: Path):
    made: PlatformCollection = platforms[request.param][0]
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1,
                            chain__rpc_url=chain.node.url)
    server = serve_gateway(made.foreign.store)
    try:
        yield made, path, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def token_uri(made: PlatformCollection, token_id: int) -> str:
    """What a collector's wallet resolves for `token_id` now: tokenURI, or for an id nobody minted where the contract
    answers only for minted ones, a minted token's base + id + the family's suffix."""
    try:
        return made.contract.functions.tokenURI(token_id).call()
    except Exception:  # noqa: BLE001  (reverts for an unminted id: URIQueryForNonexistentToken and kin)
        minted = made.minted_ids[0]
        suffix = FAMILIES[made.family].suffix
        return made.contract.functions.tokenURI(minted).call().removesuffix(f"{minted}{suffix}") + f"{token_id}{suffix}"


def live(made: PlatformCollection, path: Path, ids) -> dict[int, tuple[bytes, bytes]]:
    """Each token's metadata and image as a collector resolves them now, from the collection's store (the creator's
    node as a fallback: nothing of theirs was lost)."""
    store = make_backend(load_collection(path).spec.ipfs, load_collection(path).state_dir).fetch_block

    def fetch(cid):
        return store(cid) or made.foreign.store.get(cid)
    found = {}
    for token_id in ids:
        document = read_file(resolve(token_uri(made, token_id), fetch), fetch)
        found[token_id] = (document, read_file(resolve(json.loads(document)["image"], fetch), fetch))
    return found


@pytest.mark.parametrize("case", sorted(SETTERS), indirect=True)  # every family
def test_import_audit_and_repair_through_the_family_setter(case, chain: Chain, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path):
    made, path, gateway = case
    family = made.family
    code, imported = cli("import", str(path), "--from", made.address, "--gateway", gateway)
    assert code == 0, imported
    assert imported["family"] == family and imported["profile"]["source"] == "bytecode"
    assert {t["token_id"]: t["image_cid"] for t in imported["imported"]} == made.foreign.image_cids
    sold = sorted(made.minted_ids)
    minted_broken = sorted(set(made.broken) & set(sold))
    unminted_broken = sorted(set(made.broken) - set(sold))

    code, audit = cli("audit", str(path))
    assert code == 1 and audit["family"] == family
    assert {p["token_id"] for p in audit["problems"] if p["kind"] == "image-broken"} == set(made.broken), audit
    assert sorted(p["token_id"] for p in audit["problems"] if p.get("minted")) == minted_broken
    # Sold = held by a wallet other than the owner: what the creator minted to itself is repaired like unminted.
    assert (audit["checked"]["sold"]["sold"], audit["checked"]["sold"]["held_by_owner"]) == (sold, list(made.held_ids))
    before = live(made, path, [*sold, *unminted_broken])

    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    block = chain.w3.eth.block_number
    code, repaired = cli("audit", str(path), "--repair")

    assert repaired.get("status") == "repaired", repaired
    assert sorted(t["token_id"] for t in repaired["plan"]["tokens"]) == unminted_broken
    sent = [chain.w3.eth.get_block(n, full_transactions=True)["transactions"][0]
            for n in range(block + 1, chain.w3.eth.block_number + 1)]
    target = made.renderer or made.contract
    assert {target.decode_function_input(tx["input"])[0].fn_name for tx in sent} == SETTERS[family]
    assert all(tx["to"] == target.address for tx in sent)
    after = live(made, path, [*sold, *unminted_broken])
    assert {t: after[t] for t in sold} == {t: before[t] for t in sold}, "every sold token byte-identical"
    for token_id in unminted_broken:  # a new image, which passes the guards
        assert after[token_id][1] != before[token_id][1]
        (tmp_path / f"{token_id}.png").write_bytes(after[token_id][1])
    assert cli("validate", *(str(tmp_path / f"{t}.png") for t in unminted_broken))[0] == 0
    code, audit = cli("audit", str(path))
    assert {p["token_id"] for p in audit["problems"] if p["kind"] == "image-broken"} == set(minted_broken), audit


@pytest.mark.parametrize("case", ["hashlips-lower-gas", "thirdweb-drop"], indirect=True)
def test_print_tx_for_an_admin_mintprep_holds_no_key_for(case, chain: Chain, monkeypatch: pytest.MonkeyPatch):
    made, path, gateway = case
    assert cli("import", str(path), "--from", made.address, "--gateway", gateway)[0] == 0
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.accounts[2].key.hex())  # not the admin
    block = chain.w3.eth.block_number

    code, printed = cli("audit", str(path), "--repair", "--print-tx")

    assert code == 1 and printed["status"] == "awaiting-base-uri", printed
    assert chain.w3.eth.block_number == block, "nothing was sent"
    decoded = [made.contract.decode_function_input(tx["data"]) for tx in printed["transactions"]]
    assert {f.fn_name for f, _ in decoded} == SETTERS[made.family]
    for tx in printed["transactions"]:  # the admin sends them from its own wallet
        receipt = chain.w3.eth.wait_for_transaction_receipt(chain.w3.eth.send_transaction(
            {"from": made.admin.address, "to": tx["to"], "data": tx["data"]}))
        assert receipt["status"] == 1
    code, done = cli("audit", str(path), "--repair", "--print-tx")
    assert done["status"] == "repaired" and done["transactions"] == [], done
    assert {p["token_id"] for p in done["after"]["problems"]} == set(made.broken) & set(made.minted_ids)



@pytest.mark.parametrize("case", ["thirdweb-drop"], indirect=True)
def test_run_never_makes_art_for_a_token_the_contract_serves(case, chain: Chain):
    """The creator lazy-mints a third batch after the import and grows the collection to 25: those ids are the
    contract's, so `run` names them and points at `import` instead of generating art for them."""
    made, path, gateway = case
    assert cli("import", str(path), "--from", made.address, "--gateway", gateway)[0] == 0
    made.transact(made.contract.functions.lazyMint(5, made.bases[0], b""))
    write_collection(path.parent, size=SIZE + 5, generator__steps=3, generator__upscale=1,
                     chain__rpc_url=chain.node.url)

    code, ran = cli("run", str(path))

    added = list(range(SIZE, SIZE + 5))
    assert code == 1 and ran["generated"] == 0 and ran["not_imported"] == added, ran
    assert f"`mintprep import --from {made.address}` again" in ran["not_imported_advice"]


@pytest.mark.parametrize("case", ["thirdweb-drop"], indirect=True)
def test_thirdweb_a_frozen_batch_is_refused_by_name_and_an_encrypted_one_recognised(case, chain: Chain,
                                                                                   monkeypatch: pytest.MonkeyPatch):
    made, path, gateway = case
    encrypted = add_encrypted_batch(made, 5, "ipfs://bafkqaaa/", made.bases[0], b"a secret key")
    write_collection(path.parent, size=SIZE + 5, generator__steps=3, generator__upscale=1,
                     chain__rpc_url=chain.node.url)
    code, imported = cli("import", str(path), "--from", made.address, "--gateway", gateway)
    assert code == 1 and sorted(map(int, imported["skipped"])) == list(range(SIZE, SIZE + 5)), imported
    assert all("encrypted" in why for why in imported["skipped"].values())
    assert len(imported["imported"]) == SIZE and encrypted == 2
    freeze_batch(made, 1)  # holds token 14, broken and nobody's
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    block = chain.w3.eth.block_number

    code, refused = cli("audit", str(path), "--repair")

    assert code == 1 and refused["status"] == "no-setter", refused
    assert "updateBatchBaseURI(uint256,string) refuses batch(es) 1 (frozen)" in refused["error"]
    assert "nothing was changed" in refused["error"] and chain.w3.eth.block_number == block
