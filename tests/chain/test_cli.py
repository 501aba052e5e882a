"""The chain commands end to end on a real anvil node (chain id 8453): exit codes, ledger rows, and that the
private key never shows up in stdout, stderr, logs or the ledger."""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from typer.testing import CliRunner

from mintprep.chain.artifact import load_artifact
from mintprep.chain.txs import MIN_PRIORITY_FEE_WEI
from mintprep.cli import app
from mintprep.state.ledger import Ledger
from tests.chain.conftest import (METADATA_ROOT, DeployedCollection, chain_collection, pin_metadata_root,
                                  record_metadata_root)

KEY_ENV = "MINTPREP_PRIVATE_KEY"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def key_forms(account) -> list[str]:
    """Every way a leaked key could be spelled: with/without 0x, either case."""
    raw = account.key.hex().removeprefix("0x")
    return [raw, raw.upper(), "0x" + raw]


def ledger_dump(state_dir: Path) -> str:
    with sqlite3.connect(state_dir / "state.db") as db:
        return "\n".join(db.iterdump())


def assert_never_leaked(secrets_: list[str], *texts: str) -> None:
    for text in texts:
        for secret in secrets_:
            assert secret not in text


def test_deploy_check_and_set_base_uri_never_leak_the_key(runner, chain, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    signer = chain.accounts[2]
    monkeypatch.setenv(KEY_ENV, signer.key.hex())
    col = chain_collection(tmp_path / "col", chain.node.url)
    record_metadata_root(col, METADATA_ROOT)

    deployed = runner.invoke(app, ["contract", "deploy", str(col.path), "--json"])
    assert deployed.exit_code == 0, deployed.output
    result = json.loads(deployed.stdout)
    assert result["deployer"] == signer.address and result["chain_id"] == 8453
    assert result["address"] in deployed.stderr  # printed for the config
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        recorded = ledger.latest_deployment(8453)
    assert (recorded.address, recorded.tx_hash, recorded.deployer) == (
        result["address"], result["tx_hash"], signer.address)

    # Fees were set by mintprep: a small explicit tip, never web3's 1 gwei fallback; type 2 on chain 8453.
    tx = chain.w3.eth.get_transaction(result["tx_hash"])
    assert tx["type"] == 2 and tx["chainId"] == 8453
    assert MIN_PRIORITY_FEE_WEI <= tx["maxPriorityFeePerGas"] < 10**9
    drop = chain.w3.eth.contract(address=result["address"], abi=load_artifact().abi)
    assert drop.functions.maxSupply().call() == 77 and drop.functions.owner().call() == signer.address
    assert drop.functions.baseURI().call() == f"ipfs://{METADATA_ROOT}/"  # metadata existed: set at deploy
    assert drop.functions.contractURI().call() == f"ipfs://{METADATA_ROOT}/collection.json"  # ERC-7572

    col = chain_collection(col.base_dir, chain.node.url, contract=result["address"])
    checked = runner.invoke(app, ["check", str(col.path), "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["ok"] is True

    repaired = pin_metadata_root(col, "repaired")
    stale = runner.invoke(app, ["check", str(col.path)])
    assert stale.exit_code == 1
    assert "mismatch: base_uri" in stale.stderr and f"ipfs://{repaired}/" in stale.stderr

    updated = runner.invoke(app, ["contract", "set-base-uri", str(col.path), "--json"])
    assert updated.exit_code == 0, updated.output
    sent = json.loads(updated.stdout)
    receipt = chain.w3.eth.get_transaction_receipt(sent["tx_hash"])
    (event,) = drop.events.BatchMetadataUpdate().process_receipt(receipt)
    assert (event.args._fromTokenId, event.args._toTokenId) == (1, 2**256 - 1)
    assert drop.functions.contractURI().call() == f"ipfs://{repaired}/collection.json"  # moved with it
    drop.functions.mint(0, 1, []).transact({"from": chain.accounts[1].address, "value": drop.functions.phase(0).call()[2]})
    assert drop.functions.tokenURI(1).call() == f"ipfs://{repaired}/1.json"
    assert runner.invoke(app, ["check", str(col.path)]).exit_code == 0

    outputs = [r.stdout + r.stderr for r in (deployed, checked, stale, updated)]
    assert_never_leaked(key_forms(signer), *outputs, caplog.text, ledger_dump(col.state_dir))


def test_set_base_uri_print_shows_the_call_for_a_multisig_and_sends_nothing(
    runner, deployed_collection: DeployedCollection, monkeypatch
):
    monkeypatch.delenv(KEY_ENV, raising=False)
    col = deployed_collection.col
    multisig = pin_metadata_root(col, "multisig")
    block = deployed_collection.chain.w3.eth.block_number
    printed = runner.invoke(app, ["contract", "set-base-uri", str(col.path), "--print"])
    assert printed.exit_code == 0, printed.output
    drop = deployed_collection.chain.w3.eth.contract(address=deployed_collection.deployed.address,
                                                     abi=load_artifact().abi)
    expected_data = drop.encode_abi("setBaseURI", [f"ipfs://{multisig}/", f"ipfs://{multisig}/collection.json"])
    assert f"to: {drop.address}" in printed.stdout and f"data: {expected_data}" in printed.stdout
    assert deployed_collection.chain.w3.eth.block_number == block  # nothing was sent


def test_keystore_with_password_from_env_deploys(runner, chain, tmp_path, monkeypatch):
    signer = chain.accounts[3]
    keystore = tmp_path / "deployer.json"
    keystore.write_text(json.dumps(Account.encrypt(signer.key, "correct horse", iterations=2)))
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv("MINTPREP_KEYSTORE_PASSWORD", "correct horse")
    col = chain_collection(tmp_path / "col", chain.node.url)
    result = runner.invoke(app, ["contract", "deploy", str(col.path), "--keystore", str(keystore), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deployer"] == signer.address

    monkeypatch.setenv("MINTPREP_KEYSTORE_PASSWORD", "wrong")
    refused = runner.invoke(app, ["contract", "deploy", str(col.path), "--keystore", str(keystore)])
    assert refused.exit_code == 2
    assert f"keystore {keystore}: wrong password" in refused.stderr
    assert_never_leaked(key_forms(signer) + ["correct horse"], result.stdout + result.stderr, refused.stderr)


def test_keystore_password_is_prompted_when_not_in_env(runner, chain, tmp_path, monkeypatch):
    signer = chain.accounts[4]
    keystore = tmp_path / "deployer.json"
    keystore.write_text(json.dumps(Account.encrypt(signer.key, "typed secret", iterations=2)))
    monkeypatch.delenv("MINTPREP_KEYSTORE_PASSWORD", raising=False)
    col = chain_collection(tmp_path / "col", chain.node.url)
    result = runner.invoke(app, ["contract", "deploy", str(col.path), "--keystore", str(keystore)],
                           input="typed secret\n")
    assert result.exit_code == 0, result.output
    assert "typed secret" not in result.output


@pytest.mark.parametrize(
    ("env", "message"),
    [(None, "no signing key: set MINTPREP_PRIVATE_KEY"), ("0x1234notakey", "MINTPREP_PRIVATE_KEY is not a 32-byte")],
)
def test_missing_or_malformed_key_exits_2_without_echoing_it(runner, chain, tmp_path, monkeypatch, env, message):
    if env is None:
        monkeypatch.delenv(KEY_ENV, raising=False)
    else:
        monkeypatch.setenv(KEY_ENV, env)
    col = chain_collection(tmp_path / "col", chain.node.url)
    result = runner.invoke(app, ["contract", "deploy", str(col.path)])
    assert result.exit_code == 2 and message in result.stderr
    assert "1234notakey" not in result.output
    assert not (col.state_dir / "state.db").exists()  # the key is read before the ledger is opened


def test_deploy_refuses_a_node_on_another_chain_and_records_nothing(runner, chain, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, chain.accounts[2].key.hex())
    col = chain_collection(tmp_path / "col", chain.node.url)
    before = chain.w3.eth.get_transaction_count(chain.accounts[2].address)
    result = runner.invoke(app, ["contract", "deploy", str(col.path), "--network", "local", "--rpc-url", chain.node.url])
    assert result.exit_code == 2
    assert "chain id 8453" in result.stderr and "'local' is chain id 31337" in result.stderr
    assert chain.w3.eth.get_transaction_count(chain.accounts[2].address) == before
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.latest_deployment(8453) is None and ledger.latest_deployment(31337) is None


def test_check_against_unreachable_rpc_exits_2_naming_the_url(runner, tmp_path):
    col = chain_collection(tmp_path / "col", "http://127.0.0.1:9", contract="0x" + "11" * 20)
    result = runner.invoke(app, ["check", str(col.path), "--json"])
    assert result.exit_code == 2
    assert "cannot reach the RPC at http://127.0.0.1:9" in result.stderr
    answer = json.loads(result.stdout)  # under --json an error is one JSON object on stdout, and nothing else
    assert answer["exit_code"] == 2 and "cannot reach the RPC" in answer["error"]["message"]


def test_second_deploy_is_refused_unless_asked_for(runner, deployed_collection: DeployedCollection, monkeypatch):
    chain = deployed_collection.chain
    monkeypatch.setenv(KEY_ENV, chain.owner.key.hex())
    unpasted = deployed_collection.with_chain(contract=None)  # only the ledger knows the contract
    nonce = chain.w3.eth.get_transaction_count(chain.owner.address)
    refused = runner.invoke(app, ["contract", "deploy", str(unpasted.path)])
    assert refused.exit_code == 2
    assert f"exists on base at {deployed_collection.deployed.address}" in refused.stderr
    assert chain.w3.eth.get_transaction_count(chain.owner.address) == nonce
    again = runner.invoke(app, ["contract", "deploy", str(unpasted.path), "--again", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["address"] != deployed_collection.deployed.address


def test_deploy_output_keeps_the_explorer_url_on_one_line_when_not_a_terminal(chain, tmp_path):
    """stderr to a pipe (as in CI or `2> log`): rich would wrap at 80 columns; the URL must stay whole."""
    col = chain_collection(tmp_path / ("a-rather-long-folder-name-" * 3) / "col", chain.node.url)
    env = {**os.environ, KEY_ENV: chain.accounts[6].key.hex(), "COLUMNS": "40"}
    done = subprocess.run([sys.executable, "-m", "mintprep", "contract", "deploy", str(col.path)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    (explorer,) = [line for line in lines if line.startswith("explorer: ")]
    assert re.fullmatch(r"explorer: https://basescan\.org/tx/0x[0-9a-f]{64}", explorer), explorer
    assert any(str(col.path) in line for line in lines), "the config path is printed whole too"
