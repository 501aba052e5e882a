"""The fair reveal: a secret committed at deploy, mixed at reveal with the hash of a block nobody knew in advance.

Pure core: `reveal_secret` / `reveal_commitment` / `starting_offset` / `metadata_id` compute exactly what the
contract computes; `RevealState.step` says from the contract's fields what comes next, so `run_reveal` resumes
wherever an earlier run stopped (startReveal sent, seed anchored, reveal sent) and never trusts a local flag.

The secret is derived from the deploying key (keccak of its deterministic RFC 6979 signature over a fixed
message naming the chain and the provenance hash), so nothing secret is ever written to disk or the ledger,
and the same key finds it again at reveal.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any, Callable

from eth_abi import encode
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount
from eth_utils import keccak
from web3 import Web3
from web3.contract import Contract

from mintprep.chain.artifact import load_artifact
from mintprep.chain.txs import ContractCall, send_call
from mintprep.base import UserError

BLOCK_POLL_S = 0.5


def reveal_secret(signer: LocalAccount, chain_id: int, provenance_hash: str) -> bytes:
    message = encode_defunct(text=f"mintprep reveal secret v1\nchain {chain_id}\nprovenance {provenance_hash}")
    return keccak(signer.sign_message(message).signature)


def reveal_commitment(secret: bytes) -> bytes:
    """keccak256(abi.encode(secret)), what the contract compares the opened secret with."""
    return keccak(encode(["bytes32"], [secret]))


def starting_offset(secret: bytes, seed: bytes, max_supply: int) -> int:
    """keccak256(abi.encode(secret, seed)) % maxSupply, as MintprepDrop.reveal computes it."""
    return int.from_bytes(keccak(encode(["bytes32", "bytes32"], [secret, seed])), "big") % max_supply


def metadata_id(token_id: int, offset: int, size: int) -> int:
    """The metadata file (and so the image) token `token_id` shows after a reveal with `offset`."""
    return (token_id - 1 + offset) % size + 1


REVEAL_WINDOW = 256  # blockhash() answers for the last 256 blocks only
STALL_S = 180.0  # no new block for this long: the node is not mining


class RevealStep(str, Enum):
    """What the chain says is next; a rerun starts here whatever an earlier run did."""

    START = "start"  # no draw yet: send startReveal
    WAIT = "wait"  # the reveal block is not mined yet
    REVEAL = "reveal"  # its hash is (or can still be) anchored: send reveal
    MISSED = "missed"  # 256 blocks went by without anchoring: only a new draw (startReveal again) helps
    DONE = "done"


@dataclass(frozen=True)
class RevealState:
    """The contract's reveal fields and the chain head, read together."""

    revealed: bool
    reveal_block: int
    seed: bytes
    head: int
    starting_offset: int

    @property
    def step(self) -> RevealStep:
        if self.revealed:
            return RevealStep.DONE
        if self.reveal_block == 0:
            return RevealStep.START
        if self.seed != ZERO32:
            return RevealStep.REVEAL
        if self.head <= self.reveal_block:
            return RevealStep.WAIT
        # The next block executes the reveal; blockhash(reveal_block) is 0 there once it is 256 blocks on.
        return RevealStep.MISSED if self.head + 1 > self.reveal_block + REVEAL_WINDOW else RevealStep.REVEAL


ZERO32 = b"\x00" * 32


def read_state(drop: Contract) -> RevealState:
    views = drop.functions
    return RevealState(views.revealed().call(), views.revealBlock().call(), bytes(views.revealSeed().call()),
                       drop.w3.eth.block_number, views.startingOffset().call())


def mines_on_demand(w3: Web3, rpc_url: str) -> bool:
    """A development node on this machine that mines only on transactions (anvil's and hardhat's default):
    waiting would never end, so mintprep mines the blocks itself. Never true for a remote node."""
    from mintprep.chain.public_roots import is_loopback_rpc

    if not is_loopback_rpc(rpc_url):
        return False
    for method in ("anvil_getAutomine", "hardhat_getAutomine"):
        answer = w3.provider.make_request(method, [])  # type: ignore[arg-type]
        if answer.get("result") is True:
            return True
    return False


def wait_past(w3: Web3, block: int, *, mine: bool, on_block: Callable[[int, int], None] = lambda head, target: None,
              stall_s: float = STALL_S) -> None:
    """Return once `block` is mined: mine it here on a dev node (`mine`), else wait and report each new block.

    A chain that makes no block for `stall_s` seconds stops the wait with what to do; a rerun resumes."""
    head = w3.eth.block_number
    if mine:
        for _ in range(max(0, block + 1 - head)):
            w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
        return
    moved = time.monotonic()
    while head <= block:
        time.sleep(BLOCK_POLL_S)
        now_head = w3.eth.block_number
        if now_head != head:
            head, moved = now_head, time.monotonic()
            on_block(head, block)
        elif time.monotonic() - moved > stall_s:
            raise UserError(f"no new block for {stall_s:.0f} s while waiting for block {block} (head {head}): "
                            "the node is not mining; run `mintprep reveal` again once it is (it resumes)")


@dataclass(frozen=True)
class PlannedTx:
    """One transaction of the reveal as a multisig needs it: to, value, calldata and what it calls."""

    label: str
    to: str
    value: int
    data: str
    call: str
    when: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RevealResult:
    reveal_block: int
    seed: str
    starting_offset: int
    base_uri: str
    tx_hashes: tuple[str, ...]
    page: str | None = None  # the collection page, rebuilt by the command driver with the revealed gallery

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Reveal:
    """The reveal of one drop, one step at a time, each decided from the chain (`state().step`)."""

    def __init__(self, w3: Web3, address: str, secret: bytes, base_uri: str, contract_uri: str) -> None:
        self.w3 = w3
        self.drop = w3.eth.contract(address=address, abi=load_artifact().abi)
        self.secret, self.base_uri, self.contract_uri = secret, base_uri, contract_uri
        self.address = address

    def check_secret(self) -> None:
        if self.drop.functions.revealCommitment().call() != reveal_commitment(self.secret):
            raise UserError(f"{self.address}: this key's reveal secret does not open the commitment on chain; "
                            "reveal with the key that deployed the contract")

    def state(self) -> RevealState:
        return read_state(self.drop)

    def start_call(self) -> ContractCall:
        return self.drop.functions.startReveal()

    def reveal_call(self) -> ContractCall:
        return self.drop.functions.reveal(self.secret, self.base_uri, self.contract_uri)

    def send(self, signer: LocalAccount, call: ContractCall, what: str) -> str:
        return send_call(self.w3, signer, call, what)["transactionHash"].to_0x_hex()

    def planned(self, state: RevealState) -> list[PlannedTx]:
        """The transactions still to send, for `reveal --print`; nothing is sent."""
        delay = self.drop.functions.REVEAL_DELAY().call()
        txs = []
        if state.step in (RevealStep.START, RevealStep.MISSED):
            txs.append(self._planned("startReveal", self.start_call(), "startReveal()", "now"))
            when = f"once the block {delay} blocks after the startReveal block is mined (and within 256 blocks of it)"
        else:
            when = (f"once block {state.reveal_block} is mined (head {state.head})" if state.step == RevealStep.WAIT
                    else "now (the seed block is mined)")
        if state.step != RevealStep.DONE:
            txs.append(self._planned("reveal", self.reveal_call(),
                                     f"reveal(0x{self.secret.hex()}, {self.base_uri!r}, {self.contract_uri!r})", when))
        return txs

    def _planned(self, label: str, call: ContractCall, text: str, when: str) -> PlannedTx:
        return PlannedTx(label, self.address, 0, call._encode_transaction_data(), text, when)

    def result(self, sent: list[str]) -> RevealResult:
        state = self.state()
        return RevealResult(state.reveal_block, "0x" + state.seed.hex(), state.starting_offset,
                            self.drop.functions.baseURI().call(), tuple(sent))


def missed_window_message(address: str, state: RevealState) -> str:
    return (f"{address}: the reveal block {state.reveal_block} is more than {REVEAL_WINDOW} blocks behind the head "
            f"({state.head}) and its hash was never anchored, so it can no longer seed the offset. Recovery (README, "
            "Fair reveal): draw a new block with `mintprep reveal --redraw`; the contract allows it now, and the "
            "second RevealStarted event shows everyone that a draw was repeated")


def run_reveal(w3: Web3, signer: LocalAccount, address: str, secret: bytes, base_uri: str, contract_uri: str, *,
               mine: bool = False, redraw: bool = False, on_block: Callable[[int, int], None] = lambda h, t: None,
               on_sent: Callable[[str, str], None] = lambda label, tx: None) -> RevealResult:
    """Take the drop from wherever it is (not started, waiting, seed anchored) to revealed.

    `on_sent(label, tx_hash)` runs after each mined transaction (the driver records it). A missed window raises
    with the recovery unless `redraw`, which sends startReveal again."""
    reveal = Reveal(w3, address, secret, base_uri, contract_uri)
    reveal.check_secret()
    sent: list[str] = []
    while (state := reveal.state()).step != RevealStep.DONE:
        if state.step == RevealStep.MISSED and not redraw:
            raise UserError(missed_window_message(address, state))
        if state.step in (RevealStep.START, RevealStep.MISSED):
            sent.append(reveal.send(signer, reveal.start_call(), "startReveal"))
            on_sent("startReveal", sent[-1])
            redraw = False  # one new draw per run
        elif state.step == RevealStep.WAIT:
            wait_past(w3, state.reveal_block, mine=mine, on_block=on_block)
        else:
            sent.append(reveal.send(signer, reveal.reveal_call(), "reveal"))
            on_sent("reveal", sent[-1])
    return reveal.result(sent)
