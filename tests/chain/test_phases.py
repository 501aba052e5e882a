"""Sale phases and allowlists on a real anvil node: boundaries to the second, proofs, caps.

One drop with three phases is deployed once per module (the chain is snapshot per test, so every test starts
from that deployment): an allowlist phase, a second allowlist phase with another list, and a public phase.
Block times are set with evm_setNextBlockTimestamp, so "one second before the start" is exactly that.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

import pytest
from web3.exceptions import ContractCustomError

from mintprep.chain.artifact import CONTRACTS_DIR
from mintprep.chain.merkle import AllowlistTree, leaf_hash, verify
from mintprep.chain.txs import describe_revert
from tests.chain.test_contract import reverts_with
from tests.support.anvil import (AnvilNode, Chain, DeployedDrop, DropParams, deploy_test_drop, dev_accounts,
                                  node_web3)
from tests.support.tools import require_tool

PRICE_AL = 10**15
PRICE_PUBLIC = 2 * 10**15
T0 = 4_000_000_000  # far beyond anvil's clock, so every boundary is set explicitly


@dataclass(frozen=True)
class Sale:
    drop: DeployedDrop
    early: AllowlistTree  # phase 0
    friends: AllowlistTree  # phase 1
    listed: str  # on `early` only
    friend: str  # on `friends` only
    outsider: str


PHASES = {
    # start, end, price, per wallet, phase cap
    0: (T0, T0 + 100, PRICE_AL, 2, 3),
    1: (T0 + 100, T0 + 200, PRICE_AL, 1, 0),
    2: (T0 + 200, 2**64 - 1, PRICE_PUBLIC, 4, 0),
}


@pytest.fixture(scope="module")
def sale_snapshot(anvil_node: AnvilNode):
    """Deployed once for the module; each test reverts to this state (evm_snapshot inside the `chain` fixture)."""
    w3 = node_web3(anvil_node.url)
    base = w3.provider.make_request("evm_snapshot", [])["result"]
    accounts = dev_accounts()
    early = AllowlistTree.of([accounts[1].address, accounts[2].address, accounts[3].address])
    friends = AllowlistTree.of([accounts[4].address, accounts[5].address])
    roots = {0: early.root, 1: friends.root, 2: b"\x00" * 32}
    phases = tuple((*PHASES[i], roots[i]) for i in range(3))
    drop = deploy_test_drop(w3, accounts[0], DropParams(max_supply=10, phases=phases))
    yield Sale(drop, early, friends, accounts[1].address, accounts[4].address, accounts[9].address)
    w3.provider.make_request("evm_revert", [base])


@pytest.fixture
def sale(sale_snapshot: Sale, chain: Chain) -> Sale:
    return sale_snapshot


def at(chain: Chain, timestamp: int) -> None:
    """The next block (the next transaction, under automine) gets exactly this timestamp."""
    chain.w3.provider.make_request("evm_setNextBlockTimestamp", [timestamp])


def buy(sale: Sale, sender: str, phase: int, quantity: int, proof: list[bytes] | None = None, price: int | None = None):
    value = (price if price is not None else PHASES[phase][2]) * quantity
    tx = sale.drop.contract.functions.mint(phase, quantity, proof or []).transact(
        {"from": sender, "value": value, "gas": 500_000})
    receipt = sale.drop.w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 1
    return receipt


def simulate(sale: Sale, sender: str, phase: int, quantity: int, proof: list[bytes] | None, timestamp: int) -> None:
    """eth_call with the block time overridden (eth_call's 4th parameter, block overrides); a revert raises
    ContractCustomError carrying the error payload, as a real send's simulation does."""
    contract = sale.drop.contract
    call = {"from": sender, "to": contract.address, "value": hex(PHASES.get(phase, PHASES[2])[2] * quantity),
            "data": contract.encode_abi("mint", [phase, quantity, proof or []])}
    answer = sale.drop.w3.provider.make_request("eth_call", [call, "latest", {}, {"time": hex(timestamp)}])
    if "error" in answer:
        data = answer["error"].get("data")
        raise ContractCustomError(describe_revert(data), data=data)


@pytest.mark.parametrize("phase", [0, 1, 2])
def test_each_phase_opens_at_its_start_second_and_closes_at_its_end_second(sale, chain, phase):
    start, end = PHASES[phase][:2]
    tree = {0: sale.early, 1: sale.friends, 2: None}[phase]
    buyer = {0: sale.listed, 1: sale.friend, 2: sale.outsider}[phase]
    proof = tree.proof(buyer) if tree else []
    with reverts_with(f"PhaseNotStarted(start={start})"):
        simulate(sale, buyer, phase, 1, proof, start - 1)
    simulate(sale, buyer, phase, 1, proof, start)  # the start second is open
    if end < 2**64 - 1:
        simulate(sale, buyer, phase, 1, proof, end - 1)  # the last open second
        with reverts_with(f"PhaseEnded(end={end})"):
            simulate(sale, buyer, phase, 1, proof, end)
    # And with real blocks: mined one second before the start it reverts, at the start it mints.
    at(chain, start - 1)
    with reverts_with(f"PhaseNotStarted(start={start})"):
        sale.drop.contract.functions.mint(phase, 1, proof).transact({"from": buyer, "value": PHASES[phase][2]})
    at(chain, start)
    assert buy(sale, buyer, phase, 1, proof)["status"] == 1


def test_listed_wallet_mints_and_others_are_refused(sale, chain):
    at(chain, T0 + 10)
    buy(sale, sale.listed, 0, 2, sale.early.proof(sale.listed))
    assert sale.drop.contract.functions.mintedInPhase(0, sale.listed).call() == 2
    with reverts_with("NotOnAllowlist()"):  # not listed, no proof
        simulate(sale, sale.outsider, 0, 1, [], T0 + 11)
    with reverts_with("NotOnAllowlist()"):  # not listed, borrowing a listed wallet's proof
        simulate(sale, sale.outsider, 0, 1, sale.early.proof(sale.listed), T0 + 11)
    wrong = [bytes(32 - len(b"x")) + b"x" for _ in sale.early.proof(sale.listed)]
    with reverts_with("NotOnAllowlist()"):  # listed, wrong proof
        simulate(sale, sale.early.addresses[1], 0, 1, wrong, T0 + 11)


def test_a_proof_for_another_phase_is_refused(sale, chain):
    friend_proof = sale.friends.proof(sale.friend)
    with reverts_with("NotOnAllowlist()"):  # a friends-list proof offered in the early phase
        simulate(sale, sale.friend, 0, 1, friend_proof, T0 + 10)
    with reverts_with("NotOnAllowlist()"):  # an early-list wallet and its proof in the friends phase
        simulate(sale, sale.listed, 1, 1, sale.early.proof(sale.listed), T0 + 150)
    simulate(sale, sale.friend, 1, 1, friend_proof, T0 + 150)


def test_per_wallet_phase_cap_and_total_caps(sale, chain):
    a, b, c = sale.early.addresses
    at(chain, T0 + 10)
    buy(sale, a, 0, 2, sale.early.proof(a))
    with reverts_with("WalletLimit(allowed=0)"):
        simulate(sale, a, 0, 1, sale.early.proof(a), T0 + 11)
    with reverts_with("PhaseSoldOut(remaining=1)"):  # phase 0 mints 3 in all
        simulate(sale, b, 0, 2, sale.early.proof(b), T0 + 11)
    buy(sale, b, 0, 1, sale.early.proof(b))
    with reverts_with("PhaseSoldOut(remaining=0)"):
        simulate(sale, c, 0, 1, sale.early.proof(c), T0 + 12)
    # The per-wallet cap is per phase: the same wallet buys again in public, up to that phase's cap.
    at(chain, T0 + 200)
    buy(sale, a, 2, 4)
    with reverts_with("WalletLimit(allowed=0)"):
        simulate(sale, a, 2, 1, [], T0 + 201)
    assert [sale.drop.contract.functions.mintedInPhase(p, a).call() for p in (0, 2)] == [2, 4]
    assert sale.drop.contract.functions.phaseMinted(0).call() == 3 and sale.drop.contract.functions.phaseMinted(2).call() == 0
    # Total supply (10): 7 minted, a 4-token order from another wallet finds 3.
    with reverts_with("SoldOut(remaining=3)"):
        simulate(sale, sale.outsider, 2, 4, [], T0 + 201)
    buy(sale, sale.outsider, 2, 3)
    with reverts_with("SoldOut(remaining=0)"):
        simulate(sale, sale.early.addresses[2], 2, 1, [], T0 + 202)
    assert sale.drop.contract.functions.totalMinted().call() == 10
    with reverts_with("UnknownPhase(phaseId=3)"):
        simulate(sale, sale.outsider, 3, 1, [], T0 + 202)


def test_python_tree_matches_openzeppelin_merkle_tree_js(tmp_path):
    """Same addresses into @openzeppelin/merkle-tree (Node) and mintprep.chain.merkle: same root, same proofs,
    and the JS library loads mintprep's dump (the file the page publishes) and verifies every value in it."""
    node = require_tool("node", "Node.js runs @openzeppelin/merkle-tree")
    require_tool(CONTRACTS_DIR / "node_modules/@openzeppelin/merkle-tree/package.json", "npm ci --prefix contracts")
    addresses = [a.address for a in dev_accounts()] + ["0x000000000000000000000000000000000000dEaD"]
    for count in (1, 2, 3, 7, len(addresses)):
        tree = AllowlistTree.of(addresses[:count])
        (tmp_path / "dump.json").write_text(json.dumps(tree.dump()))
        script = f"""
          const {{ StandardMerkleTree }} = require({json.dumps(str(CONTRACTS_DIR / 'node_modules/@openzeppelin/merkle-tree'))});
          const values = {json.dumps([[a] for a in addresses[:count]])};
          const built = StandardMerkleTree.of(values, ['address']);
          const loaded = StandardMerkleTree.load(require({json.dumps(str(tmp_path / 'dump.json'))}));
          loaded.validate();
          const proofs = values.map(v => built.getProof(v));
          const loadedOk = values.every(v => loaded.verify(v, loaded.getProof(v)));
          console.log(JSON.stringify({{ root: built.root, loadedRoot: loaded.root, proofs, loadedOk }}));
        """
        out = json.loads(subprocess.run([str(node), "-e", script], capture_output=True, text=True, check=True).stdout)
        assert out["root"] == out["loadedRoot"] == "0x" + tree.root.hex(), count
        assert out["proofs"] == [["0x" + p.hex() for p in tree.proof(a)] for a in addresses[:count]]
        assert out["loadedOk"] is True
        for address in addresses[:count]:
            assert verify(tree.root, address, tree.proof(address))
        assert not verify(tree.root, "0x" + "11" * 20, tree.proof(addresses[0]))
    assert leaf_hash(addresses[0]) != leaf_hash(addresses[1])
