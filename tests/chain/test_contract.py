"""MintprepDrop's rules, exercised on a real anvil node (chain id 8453) through web3.

Dev accounts are unlocked on anvil, so `transact` signs on the node; web3 estimates gas first, which is where a
revert surfaces as ContractCustomError with the custom error's payload.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from eth_utils import keccak
from web3.exceptions import ContractCustomError

from mintprep.chain.artifact import load_artifact
from mintprep.chain.txs import describe_revert
from tests.support.anvil import DeployedDrop, DropParams, deploy_test_drop

TEST_ARTIFACTS = Path(__file__).parent / "artifacts"
PRICE = DropParams().mint_price_wei
MAX_UINT256 = 2**256 - 1


@contextmanager
def reverts_with(expected: str) -> Iterator[None]:
    """Expect a custom-error revert whose decoded form is exactly `expected`, e.g. "WalletLimit(allowed=0)"."""
    with pytest.raises(ContractCustomError) as caught:
        yield
    assert describe_revert(caught.value.data) == expected


def mint(drop: DeployedDrop, sender: str, quantity: int, value: int | None = None) -> dict:
    paid = PRICE * quantity if value is None else value
    tx = drop.contract.functions.mint(0, quantity, []).transact({"from": sender, "value": paid})
    return drop.w3.eth.wait_for_transaction_receipt(tx)


def test_wallet_mints_one_to_five_then_the_sixth_hits_the_wallet_limit(drop, chain):
    buyer = chain.accounts[1].address
    views = drop.contract.functions
    for expected_total in range(1, 6):
        assert mint(drop, buyer, 1)["status"] == 1
        assert views.mintedInPhase(0, buyer).call() == expected_total
    assert [views.ownerOf(i).call() for i in range(1, 6)] == [buyer] * 5  # ids start at 1
    with reverts_with("WalletLimit(allowed=0)"):
        mint(drop, buyer, 1)
    assert views.totalMinted().call() == views.totalSupply().call() == 5
    assert chain.w3.eth.get_balance(drop.contract.address) == 5 * PRICE


def test_batch_over_the_remaining_allowance_reports_what_is_left(drop, chain):
    buyer = chain.accounts[1].address
    mint(drop, buyer, 3)
    with reverts_with("WalletLimit(allowed=2)"):
        mint(drop, buyer, 3)
    assert mint(drop, buyer, 2)["status"] == 1


@pytest.mark.parametrize("paid", [PRICE - 1, PRICE + 1, 0, 2 * PRICE])
def test_payment_must_be_exact(drop, chain, paid):
    with reverts_with(f"WrongPayment(expected={PRICE}, sent={paid})"):
        mint(drop, chain.accounts[1].address, 1, value=paid)


def test_zero_quantity_is_rejected(drop, chain):
    with reverts_with("ZeroQuantity()"):
        mint(drop, chain.accounts[1].address, 0, value=0)


def test_supply_cap_holds_across_wallets(chain):
    small = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=7, max_per_wallet=5))
    mint(small, chain.accounts[1].address, 5)
    with reverts_with("SoldOut(remaining=2)"):
        mint(small, chain.accounts[2].address, 3)
    mint(small, chain.accounts[2].address, 2)
    with reverts_with("SoldOut(remaining=0)"):
        mint(small, chain.accounts[3].address, 1)
    assert small.contract.functions.totalMinted().call() == 7


def test_zero_max_supply_cannot_be_deployed(chain):
    with pytest.raises(ContractCustomError) as caught:
        deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=0))
    assert describe_revert(caught.value.data) == "ZeroMaxSupply()"


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f.setBaseURI("ipfs://evil/", "ipfs://evil/collection.json"),
        lambda f: f.setContractURI("ipfs://evil"),
        lambda f: f.setPhase(0, (0, 2**64 - 1, 0, 1000, 0, b"\x00" * 32)),
        lambda f: f.setPhase(1, (0, 2**64 - 1, 0, 1000, 0, b"\x00" * 32)),
        lambda f: f.setDefaultRoyalty("0x000000000000000000000000000000000000dEaD", 1000),
        lambda f: f.pause(),
        lambda f: f.startReveal(),
        lambda f: f.reveal(b"\x00" * 32, "ipfs://evil/", ""),
    ],
    ids=["setBaseURI", "setContractURI", "setPhase", "addPhase", "setDefaultRoyalty", "pause", "startReveal", "reveal"],
)
def test_owner_only_functions_revert_for_others(drop, chain, call):
    stranger = chain.accounts[4].address
    with reverts_with(f"OwnableUnauthorizedAccount(account={stranger})"):
        call(drop.contract.functions).transact({"from": stranger})


def test_owner_setters_change_values_and_emit_events(drop, chain):
    functions, events = drop.contract.functions, drop.contract.events
    owner = {"from": chain.owner.address}
    doubled = (0, 2**64 - 1, PRICE * 2, 2, 0, b"\x00" * 32)
    receipt = chain.w3.eth.wait_for_transaction_receipt(functions.setPhase(0, doubled).transact(owner))
    (changed,) = events.PhaseUpdated().process_receipt(receipt)
    assert changed.args.phaseId == 0 and tuple(changed.args.phase.values()) == doubled
    assert tuple(functions.phase(0).call()) == doubled
    receipt = chain.w3.eth.wait_for_transaction_receipt(functions.setContractURI("ipfs://bafycontract").transact(owner))
    assert len(events.ContractURIUpdated().process_receipt(receipt)) == 1
    assert functions.contractURI().call() == "ipfs://bafycontract"
    with reverts_with(f"WrongPayment(expected={PRICE * 2}, sent={PRICE})"):
        mint(drop, chain.accounts[1].address, 1)
    with reverts_with("BadPhase()"):
        functions.setPhase(0, (10, 10, 0, 1, 0, b"\x00" * 32)).transact(owner)
    with reverts_with("UnknownPhase(phaseId=2)"):
        functions.setPhase(2, doubled).transact(owner)
    chain.w3.eth.wait_for_transaction_receipt(functions.setPhase(1, doubled).transact(owner))
    assert functions.phaseCount().call() == 2


def test_paused_drop_refuses_mints_until_unpaused(drop, chain):
    owner = {"from": chain.owner.address}
    drop.contract.functions.pause().transact(owner)
    with reverts_with("EnforcedPause()"):
        mint(drop, chain.accounts[1].address, 1)
    drop.contract.functions.unpause().transact(owner)
    assert mint(drop, chain.accounts[1].address, 1)["status"] == 1


def test_set_base_uri_emits_batch_update_and_token_uri_appends_json(drop, chain):
    buyer = chain.accounts[1].address
    mint(drop, buyer, 2)
    assert drop.contract.functions.tokenURI(1).call() == ""  # no base yet: empty, as OpenZeppelin does
    receipt = chain.w3.eth.wait_for_transaction_receipt(
        drop.contract.functions.setBaseURI("ipfs://bafyroot/", "ipfs://bafyroot/collection.json").transact(
            {"from": chain.owner.address})
    )
    (update,) = drop.contract.events.BatchMetadataUpdate().process_receipt(receipt)
    assert len(drop.contract.events.ContractURIUpdated().process_receipt(receipt)) == 1
    assert drop.contract.functions.contractURI().call() == "ipfs://bafyroot/collection.json"
    assert (update.args._fromTokenId, update.args._toTokenId) == (1, MAX_UINT256)
    assert drop.contract.functions.tokenURI(2).call() == "ipfs://bafyroot/2.json"
    assert drop.contract.functions.baseURI().call() == "ipfs://bafyroot/"
    with reverts_with("ERC721NonexistentToken(tokenId=3)"):
        drop.contract.functions.tokenURI(3).call()


def test_payees_pull_their_shares_and_strangers_get_nothing(chain):
    """A 70/30 split: anyone may trigger a release, the money only goes to the payee, and never twice."""
    a, b, stranger = chain.accounts[6].address, chain.accounts[7].address, chain.accounts[8].address
    split = deploy_test_drop(chain.w3, chain.owner, DropParams(payees=((a, 70), (b, 30))))
    mint(split, chain.accounts[1].address, 5)
    mint(split, chain.accounts[2].address, 5)
    received = 10 * PRICE
    functions = split.contract.functions
    assert functions.releasable(a).call() == received * 70 // 100
    before = chain.w3.eth.get_balance(a)
    receipt = chain.w3.eth.wait_for_transaction_receipt(functions.release(a).transact({"from": stranger}))
    assert chain.w3.eth.get_balance(a) - before == received * 70 // 100
    (paid,) = split.contract.events.PaymentReleased().process_receipt(receipt)
    assert (paid.args.to, paid.args.amount) == (a, received * 70 // 100)
    with reverts_with(f"NothingDue(payee={a})"):
        functions.release(a).transact({"from": stranger})
    with reverts_with(f"NotPayee(account={stranger})"):
        functions.release(stranger).transact({"from": stranger})
    mint(split, chain.accounts[3].address, 1)  # later sales: b's share grows with them
    assert functions.releasable(b).call() == (received + PRICE) * 30 // 100
    functions.release(b).transact({"from": b})
    assert functions.releasable(a).call() == (received + PRICE) * 70 // 100 - received * 70 // 100
    assert functions.payees().call() == [a, b] and functions.totalShares().call() == 100


def test_bad_payee_lists_cannot_be_deployed(chain):
    a = chain.accounts[6].address
    for payees in (((a, 0),), ((a, 1), (a, 1)), (("0x" + "00" * 20, 1),)):
        with pytest.raises(ContractCustomError) as caught:
            deploy_test_drop(chain.w3, chain.owner, DropParams(payees=payees))
        assert describe_revert(caught.value.data) == "BadPayees()"


def test_interfaces_and_royalty(chain):
    royal = deploy_test_drop(chain.w3, chain.owner, DropParams(royalty_bps=500))
    supports = royal.contract.functions.supportsInterface
    for interface_id in ("0x80ac58cd", "0x2a55205a", "0x49064906", "0x01ffc9a7"):  # 721, 2981, 4906, 165
        assert supports(bytes.fromhex(interface_id[2:])).call(), interface_id
    assert not supports(bytes.fromhex("ffffffff")).call()
    receiver, amount = royal.contract.functions.royaltyInfo(1, 10_000).call()
    assert (receiver, amount) == (chain.owner.address, 500)


def test_receiver_reentering_mint_cannot_pass_the_wallet_limit(drop, chain):
    """A contract buyer re-enters mint() from onERC721Received; the guard (and counters updated first) stop it."""
    minter = load_artifact("ReentrantMinter", directory=TEST_ARTIFACTS)
    factory = chain.w3.eth.contract(abi=minter.abi, bytecode=minter.bytecode)
    receipt = chain.w3.eth.wait_for_transaction_receipt(
        factory.constructor(drop.contract.address, PRICE).transact({"from": chain.accounts[5].address})
    )
    attacker = chain.w3.eth.contract(address=receipt["contractAddress"], abi=minter.abi)
    # Pay for 5 and fund 10 more re-entrant mints: a broken guard would end far above the cap.
    chain.w3.eth.wait_for_transaction_receipt(
        attacker.functions.attack(5).transact({"from": chain.accounts[5].address, "value": 15 * PRICE})
    )
    views = attacker.functions
    assert drop.contract.functions.mintedInPhase(0, attacker.address).call() == 5
    assert drop.contract.functions.balanceOf(attacker.address).call() == 5
    assert views.reentryAttempts().call() == 5
    assert views.reentrySuccesses().call() == 0
    assert views.lastReentryError().call()[:4] == keccak(text="ReentrancyGuardReentrantCall()")[:4]
