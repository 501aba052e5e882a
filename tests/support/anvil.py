"""A real Ethereum node for the tests: the anvil binary from contracts/node_modules, on 127.0.0.1.

Import the fixtures into a conftest to use them:

    from tests.support.anvil import anvil_node, chain, drop  # noqa: F401

- `anvil_node` (session): one anvil process, chain id 8453 (Base), killed at the end of the session.
- `chain` (function): a `Chain` (w3 + funded dev accounts) whose state is rolled back after the test
  (evm_snapshot / evm_revert), so tests stay independent without restarting the node.
- `drop` (function): a MintprepDrop deployed on `chain` with `DropParams()` defaults; returns a `DeployedDrop`.
- `rolled_back(node)`: the same Chain as a context manager, for a module's shared deploys.
- `deploy_artifact(chain, name, *args)`: deploy a committed test artifact (tests/chain/artifacts);
  `deploy_clone(chain, contract)`: an EIP-1167 minimal proxy of it.
- `start_anvil(chain_id=...)`: a context manager for a node with another chain id or flags.
- `node_web3(url)`: the Web3 every test talks to a node through; a transaction it sends is mined when `transact`
  returns.
"""

from __future__ import annotations

import functools
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
import requests
from eth_account import Account
from eth_account.signers.local import LocalAccount
from web3 import HTTPProvider, Web3
from web3.contract import Contract

from mintprep.chain.artifact import load_artifact
from tests.support.tools import REPO, require_tool

TEST_ARTIFACTS = REPO / "tests/chain/artifacts"
ANVIL_BINARY = REPO / "contracts/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
ANVIL_MNEMONIC = "test test test test test test test test test test test junk"
BASE_CHAIN_ID = 8453
DEV_ACCOUNT_COUNT = 10


@functools.cache
def dev_accounts(count: int = DEV_ACCOUNT_COUNT) -> tuple[LocalAccount, ...]:
    """anvil's funded default accounts (10 000 ETH each), with their keys, for local signing."""
    Account.enable_unaudited_hdwallet_features()
    return tuple(Account.from_mnemonic(ANVIL_MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}") for i in range(count))


@dataclass(frozen=True)
class AnvilNode:
    url: str
    chain_id: int
    process: subprocess.Popen[bytes]


class MinedHTTPProvider(HTTPProvider):
    """An HTTP provider whose eth_sendTransaction / eth_sendRawTransaction return once the transaction is mined.

    anvil's automine answers with the hash before the block holding the transaction exists
    (foundry-rs/foundry#3537), so a test reading state right after `transact` could, on a loaded machine, see
    the state before it: the block number, a base URI, a mint. Waiting here makes every test transaction
    synchronous in one place rather than at each of the tests' `transact` calls."""

    RECEIPT_TIMEOUT_S = 10.0

    def make_request(self, method, params):
        response = super().make_request(method, params)
        if method in ("eth_sendTransaction", "eth_sendRawTransaction") and response.get("result"):
            deadline = time.monotonic() + self.RECEIPT_TIMEOUT_S
            while not super().make_request("eth_getTransactionReceipt", [response["result"]]).get("result"):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"transaction {response['result']} not mined in {self.RECEIPT_TIMEOUT_S} s")
                time.sleep(0.002)
        return response


def node_web3(url: str) -> Web3:
    return Web3(MinedHTTPProvider(url, request_kwargs={"timeout": 10}))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_answering(url: str, process: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            reason = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise RuntimeError(f"anvil exited with status {process.returncode} before answering on {url}: {reason}")
        try:
            requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, timeout=1)
            return
        except requests.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError(f"anvil did not answer on {url} within {timeout} s")


@contextmanager
def start_anvil(chain_id: int = BASE_CHAIN_ID, extra_args: tuple[str, ...] = ()) -> Iterator[AnvilNode]:
    """Run anvil on a free loopback port until the block exits (skips locally / fails in CI if not installed)."""
    binary = require_tool(ANVIL_BINARY, "anvil from npm @foundry-rs/anvil: npm ci --prefix contracts")
    # Two tries: another process can take the free port between the probe and anvil binding it.
    for attempt in range(2):
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        command = [str(binary), "--host", "127.0.0.1", "--port", str(port), "--chain-id", str(chain_id), "--silent"]
        process = subprocess.Popen([*command, *extra_args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _wait_until_answering(url, process)
        except RuntimeError:
            process.kill()
            process.wait()
            if attempt:
                raise
            continue
        try:
            yield AnvilNode(url=url, chain_id=chain_id, process=process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return


@dataclass(frozen=True)
class Chain:
    node: AnvilNode
    w3: Web3
    accounts: tuple[LocalAccount, ...]

    @property
    def owner(self) -> LocalAccount:
        return self.accounts[0]


@dataclass(frozen=True)
class DropParams:
    """Constructor values for a test drop; without `phases`, one public phase at mint_price_wei / max_per_wallet."""

    name: str = "Sunflower Study"
    symbol: str = "SUNF"
    max_supply: int = 77
    mint_price_wei: int = 630_000_000_000_000  # 0.00063 ETH
    max_per_wallet: int = 5
    base_uri: str = ""
    contract_uri: str = ""
    placeholder_uri: str = ""
    provenance_hash: bytes = b"\x00" * 32
    reveal_commitment: bytes = b"\x00" * 32
    royalty_bps: int = 0
    phases: tuple[tuple, ...] = ()  # MintprepDrop.Phase tuples: (start, end, price, maxPerWallet, maxMints, root)
    payees: tuple[tuple[str, int], ...] = ()  # default: the owner, one share

    def phase_tuples(self) -> list[tuple]:
        public = (0, 2**64 - 1, self.mint_price_wei, self.max_per_wallet, 0, b"\x00" * 32)
        return list(self.phases) or [public]


@dataclass(frozen=True)
class DeployedDrop:
    w3: Web3
    contract: Contract
    owner: LocalAccount
    tx_hash: str


def deploy_test_drop(w3: Web3, owner: LocalAccount, params: DropParams = DropParams()) -> DeployedDrop:
    """Deploy MintprepDrop straight from the artifact, independently of mintprep's own deploy code."""
    artifact = load_artifact()
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
    init = (params.name, params.symbol, params.max_supply, params.base_uri, params.contract_uri,
            params.placeholder_uri, params.provenance_hash, params.reveal_commitment, owner.address, owner.address,
            params.royalty_bps)
    payees = params.payees or ((owner.address, 1),)
    tx_hash = factory.constructor(
        init, params.phase_tuples(), [a for a, _ in payees], [n for _, n in payees]
    ).transact({"from": owner.address})
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=10)
    assert receipt["status"] == 1, "MintprepDrop deployment reverted"
    contract = w3.eth.contract(address=receipt["contractAddress"], abi=artifact.abi)
    return DeployedDrop(w3=w3, contract=contract, owner=owner, tx_hash=tx_hash.to_0x_hex())


def deploy_artifact(chain: Chain, name: str, *args: object, directory: Path = TEST_ARTIFACTS,
                    sender: LocalAccount | None = None, abi_of: str | None = None) -> Contract:
    """Deploy the committed artifact `name` (tests/chain/artifacts) from `sender` (the chain's owner); the
    contract at the new address with the ABI of `abi_of` (a proxy seen through its implementation's ABI)."""
    artifact = load_artifact(name, directory)
    sender = sender or chain.owner
    tx = chain.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode).constructor(*args).transact(
        {"from": sender.address})
    receipt = chain.w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 1, f"{name} deployment reverted"
    abi = load_artifact(abi_of, directory).abi if abi_of else artifact.abi
    return chain.w3.eth.contract(address=receipt["contractAddress"], abi=abi)


# EIP-1167: the creation code that returns the 45-byte runtime delegating every call to the 20-byte address.
EIP1167_CREATION = ("3d602d80600a3d3981f3363d3d373d3d3d363d73", "5af43d82803e903d91602b57fd5bf3")


def deploy_clone(chain: Chain, implementation: Contract, sender: LocalAccount | None = None) -> Contract:
    """An EIP-1167 minimal proxy of `implementation` (what thirdweb's and many factories deploy), seen through the
    implementation's ABI; uninitialised."""
    head, tail = EIP1167_CREATION
    code = "0x" + head + implementation.address[2:].lower() + tail
    tx = chain.w3.eth.send_transaction({"from": (sender or chain.owner).address, "data": code})
    receipt = chain.w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 1, "EIP-1167 clone deployment reverted"
    return chain.w3.eth.contract(address=receipt["contractAddress"], abi=implementation.abi)


@pytest.fixture(scope="session")
def anvil_node() -> Iterator[AnvilNode]:
    with start_anvil(BASE_CHAIN_ID) as node:
        yield node


@contextmanager
def rolled_back(node: AnvilNode) -> Iterator[Chain]:
    """A `Chain` on `node` whose state is rolled back (evm_snapshot / evm_revert) when the block exits; nested
    blocks roll back to their own snapshots (a module's deploys, then each test's changes)."""
    w3 = node_web3(node.url)
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    try:
        yield Chain(node=node, w3=w3, accounts=dev_accounts())
    finally:
        w3.provider.make_request("evm_revert", [snapshot])


@pytest.fixture
def chain(anvil_node: AnvilNode) -> Iterator[Chain]:
    with rolled_back(anvil_node) as rolled:
        yield rolled


@pytest.fixture
def drop(chain: Chain) -> DeployedDrop:
    return deploy_test_drop(chain.w3, chain.owner)
