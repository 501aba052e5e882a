"""`mintprep reveal` always finishes or says what to do, on real anvil nodes: one that mines only on transactions
(the blocks are mined by mintprep), one mining every second (mintprep waits and reports each block), a run
SIGKILLed after each transaction and rerun, a missed 256-block window recovered with --redraw, and --print."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from eth_abi import decode
from web3 import Web3

from mintprep.chain.artifact import load_artifact
from mintprep.chain.reveal import RevealStep, mines_on_demand, read_state, reveal_commitment
from mintprep.collection.config import load_collection
from mintprep.base.faults import FAULT_ENV
from mintprep.state.ledger import Ledger
from tests.chain.conftest import chain_collection, deploy_for, pin_metadata_root
from tests.support.anvil import Chain, dev_accounts, node_web3, start_anvil

REVEAL = {"placeholder_uri": "ipfs://bafkplaceholder"}


def unrevealed(folder: Path, rpc_url: str, owner) -> tuple[Path, object]:
    """A chain.reveal collection deployed by mintprep on the node at `rpc_url`: (collection.yaml, the contract).
    Its metadata directory (ROOT below) is real and in the local store."""
    col = chain_collection(folder, rpc_url, reveal=REVEAL)
    pin_metadata_root(col, "real")
    deployed = deploy_for(col, owner)
    col = chain_collection(col.base_dir, rpc_url, reveal=REVEAL, contract=deployed.address)
    w3 = node_web3(rpc_url)
    return col.path, w3.eth.contract(address=deployed.address, abi=load_artifact().abi)


def reveal_cli(path: Path, *args: str, fault: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "MINTPREP_PRIVATE_KEY": dev_accounts()[0].key.hex()}
    env.pop(FAULT_ENV, None)
    if fault:
        env[FAULT_ENV] = f"reveal-tx-{fault}"
    return subprocess.run([sys.executable, "-m", "mintprep", "reveal", str(path), *args], capture_output=True,
                          text=True, env=env, timeout=120)


def root_of(path: Path) -> str:
    with Ledger.open(load_collection(path).state_dir, readonly=True) as ledger:
        return ledger.current_manifest().metadata_root


def started_events(drop) -> int:
    return len(drop.events.RevealStarted().get_logs(from_block=0))


def test_a_reveal_killed_after_each_transaction_finishes_when_rerun(chain: Chain, tmp_path: Path):
    path, drop = unrevealed(tmp_path / "col", chain.node.url, chain.owner)
    assert mines_on_demand(chain.w3, chain.node.url), "anvil's default: blocks only on transactions"

    first = reveal_cli(path, fault="startReveal")
    assert first.returncode == -signal.SIGKILL, first.stderr
    state = read_state(drop)
    assert state.reveal_block > 0 and not state.revealed and state.step == RevealStep.WAIT

    second = reveal_cli(path, fault="reveal")
    assert second.returncode == -signal.SIGKILL, second.stderr
    assert drop.functions.revealed().call() and started_events(drop) == 1, "the rerun resumed, no second draw"
    offset = drop.functions.startingOffset().call()

    third = reveal_cli(path, "--json")
    assert third.returncode == 0, third.stderr
    answer = json.loads(third.stdout)
    assert answer["tx_hashes"] == [] and answer["starting_offset"] == offset
    assert answer["base_uri"] == drop.functions.baseURI().call() == f"ipfs://{root_of(path)}/"
    assert "already revealed" in third.stderr


def test_a_missed_window_is_explained_then_recovered_with_redraw(chain: Chain, tmp_path: Path):
    path, drop = unrevealed(tmp_path / "col", chain.node.url, chain.owner)
    drop.functions.startReveal().transact({"from": chain.owner.address})
    first_block = drop.functions.revealBlock().call()
    chain.w3.provider.make_request("anvil_mine", [hex(300)])  # nobody anchored the seed in time

    refused = reveal_cli(path, "--json")
    assert refused.returncode == 2
    message = json.loads(refused.stdout)["error"]["message"]
    assert f"reveal block {first_block}" in message and "mintprep reveal --redraw" in message
    assert not drop.functions.revealed().call() and started_events(drop) == 1, "nothing sent without --redraw"

    recovered = reveal_cli(path, "--redraw", "--json")
    assert recovered.returncode == 0, recovered.stderr
    assert drop.functions.revealed().call()
    assert drop.functions.revealBlock().call() > first_block + 256 and started_events(drop) == 2


def test_print_gives_each_transaction_for_a_multisig_and_sends_nothing(chain: Chain, tmp_path: Path):
    path, drop = unrevealed(tmp_path / "col", chain.node.url, chain.owner)
    head = chain.w3.eth.block_number
    printed = reveal_cli(path, "--print", "--json")
    assert printed.returncode == 0, printed.stderr
    start, reveal = json.loads(printed.stdout)
    assert chain.w3.eth.block_number == head and drop.functions.revealBlock().call() == 0, "nothing was sent"
    assert (start["to"], start["value"], start["call"]) == (drop.address, 0, "startReveal()")
    assert start["data"] == "0x" + Web3.keccak(text="startReveal()")[:4].hex()
    selector = Web3.keccak(text="reveal(bytes32,string,string)")[:4].hex()
    assert reveal["data"].startswith("0x" + selector)
    secret, base, contract_uri = decode(["bytes32", "string", "string"], bytes.fromhex(reveal["data"][10:]))
    assert reveal_commitment(secret) == drop.functions.revealCommitment().call(), "the secret that opens it"
    assert base == f"ipfs://{root_of(path)}/"
    assert contract_uri == f"ipfs://{root_of(path)}/collection.json"
    # The printed calldata, sent as printed (here by the owner account on anvil), reveals the drop.
    chain.w3.eth.send_transaction({"from": chain.owner.address, "to": start["to"], "data": start["data"]})
    chain.w3.provider.make_request("anvil_mine", [hex(6)])
    chain.w3.eth.send_transaction({"from": chain.owner.address, "to": reveal["to"], "data": reveal["data"]})
    assert drop.functions.revealed().call()


@pytest.mark.slow
def test_reveal_waits_for_an_interval_mining_node_and_reports_each_block(tmp_path: Path):
    with start_anvil(extra_args=("--block-time", "1")) as node:
        w3 = node_web3(node.url)
        assert not mines_on_demand(w3, node.url), "interval mining: mintprep must wait, not mine"
        path, drop = unrevealed(tmp_path / "col", node.url, dev_accounts()[0])
        done = reveal_cli(path)
        assert done.returncode == 0, done.stderr
        assert drop.functions.revealed().call() and started_events(drop) == 1
        assert "waiting for block" in done.stderr and "revealed: starting offset" in done.stderr
