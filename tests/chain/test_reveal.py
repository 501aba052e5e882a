"""The fair reveal on anvil: provenance and commitment on chain from the deploy, offset fixed only once a block
after startReveal is mined, and the token -> image mapping the contract serves equals `revealed_images`
(the manifest's images shifted by `metadata_id`)."""

from __future__ import annotations

import hashlib
import json

import pytest

from mintprep.chain.artifact import load_artifact
from mintprep.chain.reveal import metadata_id, reveal_commitment, reveal_secret, run_reveal, starting_offset
from tests.chain.test_contract import reverts_with
from tests.support.anvil import DropParams, deploy_test_drop

SIZE = 12
PRICE = DropParams().mint_price_wei


def revealed_images(manifest: dict, offset: int) -> dict[int, str]:
    """token id -> image CID after the reveal: the manifest lists token files 1..size in order of their art; the
    offset shifts which one a token shows."""
    by_file = {int(t["token_id"]): str(t["image_cid"]) for t in manifest["tokens"]}
    size = int(manifest["size"])
    return {token_id: by_file[metadata_id(token_id, offset, size)] for token_id in range(1, size + 1)
            if metadata_id(token_id, offset, size) in by_file}


def manifest() -> dict:
    tokens = [{"token_id": i, "image_cid": f"bafkimage{i:02d}", "png_sha256": hashlib.sha256(bytes([i])).hexdigest()}
              for i in range(1, SIZE + 1)]
    provenance = hashlib.sha256(b"".join(bytes.fromhex(t["png_sha256"]) for t in tokens)).hexdigest()
    return {"size": SIZE, "tokens": tokens, "provenance_hash": provenance}


def test_reveal_offset_is_fixed_only_after_the_commit_and_matches_the_mapping(chain):
    owner = chain.owner
    m = manifest()
    secret = reveal_secret(owner, chain.node.chain_id, m["provenance_hash"])
    assert secret == reveal_secret(owner, chain.node.chain_id, m["provenance_hash"]), "same key, same secret"
    assert secret != reveal_secret(chain.accounts[1], chain.node.chain_id, m["provenance_hash"])
    drop = deploy_test_drop(chain.w3, owner, DropParams(
        max_supply=SIZE, placeholder_uri="ipfs://bafkplaceholder", provenance_hash=bytes.fromhex(m["provenance_hash"]),
        reveal_commitment=reveal_commitment(secret))).contract
    views = drop.functions
    # Provenance on chain before the first mint: it is in the constructor.
    assert views.provenanceHash().call().hex() == m["provenance_hash"]
    drop.functions.mint(0, 3, []).transact({"from": chain.accounts[1].address, "value": 3 * PRICE})
    assert views.tokenURI(2).call() == "ipfs://bafkplaceholder"  # unrevealed
    assert views.baseURI().call() == ""

    owner_tx = {"from": owner.address}
    with reverts_with("RevealNotStarted()"):
        views.anchorRevealSeed().transact(owner_tx)
    with reverts_with("WrongSecret()"):
        views.reveal(b"\x01" * 32, "ipfs://bafyreal/", "").transact(owner_tx)
    views.startReveal().transact(owner_tx)
    target = views.revealBlock().call()
    assert target == chain.w3.eth.block_number + 5  # REVEAL_DELAY blocks after the startReveal block
    # Before its block exists nobody can know (or anchor) the seed, so the offset is not fixed yet.
    with reverts_with(f"SeedNotReady(revealBlock={target})"):
        views.anchorRevealSeed().transact({"from": chain.accounts[7].address})
    with reverts_with(f"RevealPending(revealBlock={target})"):
        views.startReveal().transact(owner_tx)  # no second draw while this one can still be anchored
    with reverts_with(f"OwnableUnauthorizedAccount(account={chain.accounts[7].address})"):
        views.reveal(secret, "ipfs://bafyreal/", "").transact({"from": chain.accounts[7].address})

    result = run_reveal(chain.w3, owner, drop.address, secret, "ipfs://bafyreal/", "ipfs://bafyreal/collection.json",
                        mine=True)
    seed = chain.w3.eth.get_block(target)["hash"]
    assert result.seed == seed.to_0x_hex() and views.revealSeed().call() == seed
    offset = starting_offset(secret, seed, SIZE)
    assert result.starting_offset == offset == views.startingOffset().call()
    assert views.revealed().call()

    images = revealed_images(m, offset)
    by_file = {t["token_id"]: t["image_cid"] for t in m["tokens"]}
    for token_id in (1, 2, 3):
        served = views.tokenURI(token_id).call()
        file_id = int(served.removeprefix("ipfs://bafyreal/").removesuffix(".json"))
        assert file_id == metadata_id(token_id, offset, SIZE) == views.metadataIdOf(token_id).call()
        assert images[token_id] == by_file[file_id]
    assert sorted(images.values()) == sorted(by_file.values()), "a permutation: every image shown exactly once"
    with reverts_with("AlreadyRevealed()"):
        views.startReveal().transact(owner_tx)
    again = run_reveal(chain.w3, owner, drop.address, secret, "ipfs://x/", "", mine=True)
    assert again.tx_hashes == () and again.starting_offset == offset, "a rerun after the reveal sends nothing"
    assert views.baseURI().call() == "ipfs://bafyreal/"


def test_a_drop_without_reveal_cannot_start_one(drop, chain):
    with reverts_with("NoReveal()"):
        drop.contract.functions.startReveal().transact({"from": chain.owner.address})


def test_mintprep_deploys_unrevealed_check_agrees_and_reveal_sets_the_real_base(chain, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from mintprep.chain.check import check_collection
    from mintprep.cli import app
    from mintprep.state.ledger import Ledger
    from tests.chain.conftest import chain_collection, deploy_for, pin_metadata_root

    reveal = {"placeholder_uri": "ipfs://bafkplaceholder"}
    col = chain_collection(tmp_path / "col", chain.node.url, reveal=reveal)
    root = pin_metadata_root(col, "revealed")  # reveal, like every base-URI change, checks the root whole
    deployed = deploy_for(col, chain.owner)
    col = chain_collection(col.base_dir, chain.node.url, reveal=reveal, contract=deployed.address)
    drop = chain.w3.eth.contract(address=deployed.address, abi=load_artifact().abi)
    assert drop.functions.baseURI().call() == "" and drop.functions.revealCommitment().call() != b"\x00" * 32

    def check():
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            return check_collection(col, ledger)

    before = check()
    assert before.ok, before.to_json()
    assert before.row("base_uri").expected == "" and before.row("provenance_hash").ok is True
    runner = CliRunner()
    refused = runner.invoke(app, ["contract", "set-base-uri", str(col.path), "--print"])
    assert refused.exit_code == 2 and "mintprep reveal" in refused.stderr

    monkeypatch.setenv("MINTPREP_PRIVATE_KEY", chain.owner.key.hex())
    # anvil mines only on transactions here: the reveal mines the blocks it waits for itself.
    revealed = runner.invoke(app, ["reveal", str(col.path), "--json"])
    assert revealed.exit_code == 0, revealed.output
    offset = json.loads(revealed.stdout)["starting_offset"]
    assert drop.functions.startingOffset().call() == offset and drop.functions.revealed().call()
    assert drop.functions.baseURI().call() == f"ipfs://{root}/"
    after = check()
    assert after.ok and after.row("base_uri").expected == f"ipfs://{root}/"
    assert after.row("revealed").on_chain == f"offset {offset}"


def test_a_placeholder_image_is_pinned_with_its_json_and_served_before_the_reveal(chain, tmp_path):
    from mintprep.ipfs.backends import LocalBackend
    from mintprep.ipfs.reader import read_file
    from tests.chain.conftest import METADATA_ROOT, chain_collection, deploy_for, record_metadata_root
    from tests.page.conftest import sample_collection

    cid, png = next(iter(sample_collection(1).images.items()))
    col = chain_collection(tmp_path / "col", chain.node.url, reveal={"placeholder_image": "soon.png"})
    (col.base_dir / "soon.png").write_bytes(png)
    record_metadata_root(col, METADATA_ROOT)
    deployed = deploy_for(col, chain.owner)
    drop = chain.w3.eth.contract(address=deployed.address, abi=load_artifact().abi)
    drop.functions.mint(0, 1, []).transact({"from": chain.accounts[1].address, "value": PRICE})
    uri = drop.functions.tokenURI(1).call()
    assert uri == drop.functions.placeholderURI().call() and uri.startswith("ipfs://")
    backend = LocalBackend(col.state_dir)
    document = json.loads(read_file(uri.removeprefix("ipfs://"), backend.fetch_block))
    assert document["image"] == f"ipfs://{cid}", "the image CID is the one `ipfs add --cid-version=1` gives"
    assert read_file(cid, backend.fetch_block) == png
