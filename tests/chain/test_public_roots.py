"""No private CIDs on a public chain: a contract behind a non-loopback RPC URL is never pointed at a root whose
blocks are only in the embedded local store; a loopback dev chain is. Real anvil (chain id 8453), real ledger.

The non-loopback URL is this machine's host name (`socket.gethostname()`): a name, not a loopback literal, so the
rule treats it as any remote RPC whatever it resolves to; the refusal comes before any connection or transaction."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from mintprep.base.errors import UserError
from mintprep.chain.public_roots import is_loopback_rpc, require_public_root
from mintprep.cli import app
from mintprep.state.ledger import Ledger
from tests.chain.conftest import DeployedCollection, chain_collection, pin_metadata_root

KEY_ENV = "MINTPREP_PRIVATE_KEY"


def by_host_name(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=f"{socket.gethostname()}:{parts.port}").geturl()


@pytest.mark.parametrize("url, loopback", [
    ("http://127.0.0.1:8545", True), ("http://127.0.0.2:8545", True), ("http://[::1]:8545", True),
    ("http://localhost:8545", True), ("http://anvil.localhost/", True), ("http://LOCALHOST.:8545", True),
    ("https://mainnet.base.org", False), ("http://10.0.0.5:8545", False), ("http://0.0.0.0:8545", False),
    ("http://127.0.0.1.example.com/", False), ("http://localhost.example.com/", False),
])
def test_loopback_is_read_from_the_url_as_written(url: str, loopback: bool):
    assert is_loopback_rpc(url) is loopback


def test_deploy_to_a_non_loopback_rpc_with_a_local_only_root_is_refused_before_any_transaction(chain, tmp_path,
                                                                                                monkeypatch):
    signer = chain.accounts[2]
    monkeypatch.setenv(KEY_ENV, signer.key.hex())
    col = chain_collection(tmp_path / "col", by_host_name(chain.node.url))
    root = pin_metadata_root(col, "local-only")
    nonce = chain.w3.eth.get_transaction_count(signer.address)

    refused = CliRunner().invoke(app, ["contract", "deploy", str(col.path), "--json"])

    assert refused.exit_code == 2, refused.output
    error = json.loads(refused.stdout)["error"]
    assert root in error["message"] and "only in this machine's local store" in error["message"]
    assert error["field"] == "ipfs.backend" and "pinata" in error["message"]
    assert chain.w3.eth.get_transaction_count(signer.address) == nonce
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.latest_deployment(8453) is None and ledger.chain_txs("deploy-sent") == []

    allowed = CliRunner().invoke(app, ["contract", "deploy", str(col.path), "--rpc-url", chain.node.url, "--json"])
    assert allowed.exit_code == 0, allowed.output  # the same root on the loopback dev chain


def test_set_base_uri_on_a_non_loopback_rpc_is_refused_for_a_local_root(deployed_collection: DeployedCollection,
                                                                          monkeypatch):
    chain = deployed_collection.chain
    monkeypatch.setenv(KEY_ENV, chain.owner.key.hex())
    col = deployed_collection.with_chain(rpc_url=by_host_name(chain.node.url))
    pin_metadata_root(col, "newer")
    block = chain.w3.eth.block_number
    refused = CliRunner().invoke(app, ["contract", "set-base-uri", str(col.path), "--print"])
    assert refused.exit_code == 2 and "only in this machine's local store" in refused.stderr
    assert chain.w3.eth.block_number == block


def test_a_root_pinned_on_a_service_may_go_on_any_chain(deployed_collection: DeployedCollection):
    col = deployed_collection.col
    root = pin_metadata_root(col, "published")
    with Ledger.open(col.state_dir) as ledger:
        with pytest.raises(UserError, match="only in this machine's local store"):
            require_public_root(col, ledger, "https://mainnet.base.org", root)
        ledger.record_pin(cid=root, backend="pinata", content_sha256="0" * 64, profile=col.spec.ipfs.profile,
                          kind="metadata", name="published", remote_id=None)
        require_public_root(col, ledger, "https://mainnet.base.org", root)  # held by a pinning service: fine
        require_public_root(col, ledger, deployed_collection.chain.node.url, "bafyanything")  # loopback: fine


def test_the_ledger_names_the_contract_and_a_disagreeing_yaml_is_an_error(deployed_collection: DeployedCollection):
    unpasted = deployed_collection.with_chain(contract=None)
    checked = CliRunner().invoke(app, ["check", str(unpasted.path), "--json"])
    assert json.loads(checked.stdout)["address"] == deployed_collection.deployed.address  # no yaml edit needed

    other = deployed_collection.with_chain(contract="0x" + "22" * 20)
    refused = CliRunner().invoke(app, ["check", str(other.path), "--json"])
    assert refused.exit_code == 2
    error = json.loads(refused.stdout)["error"]
    assert error["field"] == "chain.contract" and deployed_collection.deployed.address in error["message"]
