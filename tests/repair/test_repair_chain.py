"""Repair against a real chain (anvil, chain id 8453, the committed MintprepDrop): the base URI ends at the new
root; minted tokens are left alone unless asked; --print-tx waits for the user's own transaction; and a repair
killed (SIGKILL) at every journal step in turn converges, on rerun, to exactly the uninterrupted result."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.collection.config import load_collection
from mintprep.base.errors import UserError
from mintprep.state.ledger import Ledger
from mintprep.commands.repair import STEPS, repair_collection
from tests.support.breakage import broken_pngs, plant_images
from tests.support.faults import killed_at_every_step, run_mintprep
from tests.support.state import assert_repaired, final_state, generations_per_token, state_fingerprint
from tests.support.anvil import Chain, DropParams, deploy_test_drop

PRICE_WEI = 630_000_000_000_000  # 0.00063 ETH, as collection.yaml says


def on_chain(path: Path, chain: Chain):
    """Plant black/flat/noise at tokens 2-4 and deploy the drop pointing at that (broken) metadata root."""
    col = load_collection(path)
    broken = broken_pngs(col)
    planted = plant_images(path, {2: broken["black"], 3: broken["flat"], 4: broken["noise"]})
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        root = ledger.current_manifest().metadata_root
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=col.spec.size, base_uri=f"ipfs://{root}/",
                                                              contract_uri=f"ipfs://{root}/collection.json"))
    data = yaml.safe_load(path.read_text())
    data["chain"].update(rpc_url=chain.node.url, contract=drop.contract.address)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return planted, drop.contract


def test_repair_updates_the_base_uri_and_leaves_minted_tokens_alone(collection: Path, chain: Chain,
                                                                     monkeypatch: pytest.MonkeyPatch):
    planted, drop = on_chain(collection, chain)
    drop.functions.mint(0, 2, []).transact({"from": chain.accounts[1].address, "value": 2 * PRICE_WEI})  # tokens 1, 2
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    col = load_collection(collection)

    dry = repair_collection(col, dry_run=True)
    assert dry.status == "planned" and dry.before.minted == [1, 2] and dry.plan.minted_skipped == [2]

    outcome = repair_collection(col)

    assert [t.token_id for t in outcome.plan.tokens] == [3, 4]
    assert [(p.token_id, p.kind) for p in outcome.after.problems] == [(2, "image-broken")]
    assert outcome.exit_code == 1
    root = final_state(collection)["metadata_root"]
    assert drop.functions.baseURI().call() == f"ipfs://{root}/"

    included = repair_collection(col, include_minted=True)
    assert [t.token_id for t in included.plan.tokens] == [2] and included.after.ok
    assert_repaired(collection, planted)
    assert drop.functions.baseURI().call() == f"ipfs://{final_state(collection)['metadata_root']}/"


def test_print_tx_waits_for_the_users_transaction_before_unpinning(collection: Path, chain: Chain):
    planted, drop = on_chain(collection, chain)
    col = load_collection(collection)

    waiting = repair_collection(col, print_tx=True)

    assert waiting.status == "awaiting-base-uri" and waiting.exit_code == 1
    update = waiting.base_uri_update
    new_root = final_state(collection)["metadata_root"]
    assert update["to"] == drop.address and update["base_uri"] == f"ipfs://{new_root}/"
    assert set(planted.values()) <= set(final_state(collection)["backend_pins"]), "old pins stay until the chain moves"
    assert repair_collection(col, print_tx=True).status == "awaiting-base-uri"  # still not sent: still waiting

    (call,) = update["calls"]  # MintprepDrop: one setBaseURI(base, contractURI)
    assert call["function"] == "setBaseURI(string,string)" and call["args"][0] == f"ipfs://{new_root}/"
    tx = chain.w3.eth.send_transaction({"from": chain.owner.address, "to": call["to"], "data": call["data"]})
    assert chain.w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    done = repair_collection(col, print_tx=True)

    assert done.status == "repaired" and done.resumed and done.after.ok
    assert_repaired(collection, planted)


def test_dry_run_changes_neither_files_nor_chain(collection: Path, chain: Chain):
    on_chain(collection, chain)
    before, block = state_fingerprint(collection), chain.w3.eth.block_number
    assert run_mintprep(["audit", str(collection), "--repair", "--dry-run"]) == 1
    assert state_fingerprint(collection) == before and chain.w3.eth.block_number == block


def test_sigkill_at_every_step_then_rerun_converges_to_the_uninterrupted_repair(collection: Path, chain: Chain,
                                                                                tmp_path: Path):
    planted, drop = on_chain(collection, chain)
    env = {PRIVATE_KEY_ENV: chain.owner.key.hex()}
    pristine = tmp_path / "pristine"
    shutil.copytree(collection.parent, pristine)
    rpc = chain.w3.provider
    snapshot = rpc.make_request("evm_snapshot", [])["result"]
    generations_before = generations_per_token(collection)

    assert run_mintprep(["audit", str(collection), "--repair"], env) == 0
    reference = assert_repaired(collection, planted)
    assert drop.functions.baseURI().call() == f"ipfs://{reference['metadata_root']}/"

    for step, path in killed_at_every_step(pristine, collection.name, tmp_path, rpc, snapshot, env):
        with Ledger.open(path.parent / ".mintprep", readonly=True) as ledger:
            assert ledger.open_journal("repair").step == step - 1
        assert run_mintprep(["audit", str(path), "--repair"], env) == 0, f"rerun after a kill at step {step}"

        assert final_state(path) == reference, f"killed at step {step} ({STEPS[step - 1].name})"
        assert drop.functions.baseURI().call() == f"ipfs://{reference['metadata_root']}/"
        regenerated = {t: n - generations_before[t] for t, n in generations_per_token(path).items()}
        assert regenerated == {1: 0, 2: 1, 3: 1, 4: 1, 5: 0}, f"a piece regenerated twice (kill at step {step})"


def test_without_a_key_or_print_tx_the_repair_refuses_before_changing_anything(collection: Path, chain: Chain,
                                                                                monkeypatch: pytest.MonkeyPatch):
    on_chain(collection, chain)
    monkeypatch.delenv(PRIVATE_KEY_ENV, raising=False)
    before = state_fingerprint(collection)
    with pytest.raises(UserError, match=f"{PRIVATE_KEY_ENV}.*--print-tx"):
        repair_collection(load_collection(collection))
    assert state_fingerprint(collection) == before
