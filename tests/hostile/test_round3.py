"""Hostile input, round 3 (issue 31): a stranger's DAG, contract and node. One row per attack, each run as a real
`python -m mintprep` process under a memory limit (RLIMIT_AS) and a time limit, with the exit status it must end
with and a text its answer must contain (the row runner is round 2's: tests/cli/test_hostile_input_bounds.py).

IPFS content comes from a trustless gateway stand-in on 127.0.0.1 (tests/hostile/dags.py) answering the trustless
gateway specification's `?format=raw` block requests with hand-built hostile blocks.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from tests.hostile import dags
from tests.hostile.node import abi_bool, abi_string, lying_node
from tests.cli.test_hostile_input_bounds import Case, Row, collection, ledger_with_log, test_hostile_row as run_row


def import_root(make_root: Any) -> Any:
    """A row's setup: `import --from ipfs://<root>` of the root `make_root(blocks)` builds, through the stand-in."""
    def setup(folder: Path, _: Any, stack: contextlib.ExitStack) -> Case:
        blocks: dags.Blocks = {}
        root = make_root(blocks)
        url = stack.enter_context(dags.block_gateway(blocks))
        return Case(["import", str(collection(folder)), "--from", f"ipfs://{root}", "--gateway", url])

    return setup


CONTRACT = "0x" + "5a" * 20


def import_contract(chain_id: int, call_answer: str = "0x", **node: Any) -> Any:
    """A row's setup: `import --from <contract>` of a Base collection through a lying node (tests/hostile/node.py)."""
    def setup(folder: Path, _: Any, stack: contextlib.ExitStack) -> Case:
        url = stack.enter_context(lying_node(chain_id, call_answer, code=hostile_code(), **node))
        path = collection(folder, chain={"network": "base", "rpc_url": url, "profile": {"family": "uri-storage"}})
        return Case(["import", str(path), "--from", CONTRACT])

    return setup


def hostile_code() -> str:
    """HostileERC721's runtime code, which the lying node serves at every address: the profile reads the
    functions a contract has from its code."""
    from mintprep.chain import load_artifact
    from tests.support.tools import REPO

    return load_artifact("HostileERC721", REPO / "tests" / "chain" / "artifacts").deployed_bytecode


def supports(interface: str) -> str:
    """The eth_call input of supportsInterface(bytes4 `interface`)."""
    return "0x01ffc9a7" + interface + "00" * 28


# A per-token-URI ERC-721 (ERC-165 says 721 and 4906) that minted token 1, whose tokenURI answer is 10 MB
PER_TOKEN_CALLS = {supports("80ac58cd"): abi_bool(True), supports("49064906"): abi_bool(True),
                   supports("780e9d63"): abi_bool(False), "0x8da5cb5b": "0x" + "00" * 12 + "cd" * 20}  # owner()


def one_mint(query: dict) -> list:
    from mintprep.chain.reads import TRANSFER_TOPIC

    address = query["address"][0] if isinstance(query["address"], list) else query["address"]
    return [{"address": address, "topics": [TRANSFER_TOPIC, "0x" + "00" * 32, "0x" + "00" * 12 + "ab" * 20,
                                                     f"0x{1:064x}"], "data": "0x", "blockNumber": "0x1",
             "transactionHash": "0x" + "11" * 32, "transactionIndex": "0x0", "blockHash": "0x" + "22" * 32,
             "logIndex": "0x0", "removed": False}]


# The family each of HostileERC721's shapes is read as (it has every family's functions: declared, not guessed).
SHAPE_FAMILIES = {0: "uri-storage", 1: "hashlips-simple", 2: "erc721a"}


def hostile_contract(shape: int, *, minted: tuple[int, ...] = (1, 2, 3), mint_range: int = 0, reverting: int = 0,
                     total_supply: int = 0) -> Any:
    """A row's setup: `import --from` a HostileERC721 (contracts/test/hostile, compiled with the project's solc-js)
    on the anvil node, its tokenURI = ipfs://<honest root>/<id>.json over the gateway stand-in, after it emitted
    Transfer mints of `minted` ids (and of ids 1..`mint_range`, 10,000 to a transaction)."""
    def setup(folder: Path, chain: Any, stack: contextlib.ExitStack) -> Case:
        from tests.chain.families.shapes import deploy_artifact

        blocks: dags.Blocks = {}
        root = dags.metadata_root(blocks, dags.honest_files(blocks))
        gateway = stack.enter_context(dags.block_gateway(blocks))
        contract = deploy_artifact(chain, "HostileERC721", f"ipfs://{root}/", reverting, shape, total_supply)
        sender = {"from": chain.owner.address}
        if minted:
            chain.w3.eth.wait_for_transaction_receipt(contract.functions.mint(list(minted)).transact(sender))
        for first in range(1, mint_range + 1, 10_000):
            chain.w3.eth.wait_for_transaction_receipt(
                contract.functions.mintRange(first, min(10_000, mint_range + 1 - first)).transact(sender))
        path = collection(folder, chain={"network": "base", "rpc_url": chain.node.url,
                                         "profile": {"family": SHAPE_FAMILIES[shape]}})
        return Case(["import", str(path), "--from", contract.address, "--gateway", gateway])

    return setup


def imported_collection(folder: Path) -> Path:
    """A collection of three imported tokens (from an ipfs:// root over the gateway stand-in), ready to export."""
    import subprocess
    import sys

    blocks: dags.Blocks = {}
    root = dags.metadata_root(blocks, dags.honest_files(blocks))
    path = collection(folder)
    with dags.block_gateway(blocks) as gateway:
        subprocess.run([sys.executable, "-m", "mintprep", "import", str(path), "--from", f"ipfs://{root}", "--gateway",
                        gateway], check=True, capture_output=True)
    return path


def diamond_image(blocks: dags.Blocks) -> Any:
    files = dags.honest_files(blocks)
    files["1.json"] = dags.put(blocks, dags.document(blocks, 1, dags.diamond_file(blocks)), dags.RAW)
    return dags.metadata_root(blocks, files)


def diamond_document(blocks: dags.Blocks) -> Any:
    files = dags.honest_files(blocks)
    files["2.json"] = dags.diamond_file(blocks)
    return dags.metadata_root(blocks, files)


ROWS: list[Row] = [
    # 1. DAG walks: bounded, remembering what they saw; identity CIDs read inline
    Row("hamt-one-subshard-3-levels", import_root(dags.hamt_one_subshard), 2, 30, 1024,
        "a HAMT shard linked twice"),
    Row("diamond-27-levels-image", import_root(diamond_image), 1, 30, 1024, "more than 67108864 bytes"),
    Row("diamond-27-levels-metadata", import_root(diamond_document), 1, 30, 1024, "more than 1048576 bytes"),
    Row("directory-block-1m-links", import_root(dags.huge_directory_block), 2, 60, 1536,
        "over the 2097152-byte block limit (ipfs.max_block_bytes)"),
    Row("identity-cid-metadata", import_root(lambda b: dags.metadata_root(b, dags.identity_files(b))), 0, 60, 1024,
        "imported 3"),
    # 2. contract reads bounded (a HostileERC721 on anvil)
    Row("transfer-of-id-max-uint256", hostile_contract(0, minted=(1, 2**256 - 1)), 2, 90, 1024,
        "token id 115792089237316195423570985008687907853269984665640564039457584007913129639935 is outside the ids "
        "mintprep records", chain=True),
    Row("total-supply-max-uint256", hostile_contract(1, total_supply=2**256 - 1), 2, 90, 1024,
        "totalSupply() says 115792089237316195423570985008687907853269984665640564039457584007913129639935 tokens "
        "but its Transfer history shows 3", chain=True),
    Row("token-uri-2-reverts", hostile_contract(0, reverting=2), 1, 90, 1024, "tokenURI(2) reverted", chain=True),
    # 4. output bounded: 60,000 minted tokens the metadata root lacks (it has 1..3), refused in a few hundred bytes
    Row("60000-transfer-mints", hostile_contract(2, minted=(), mint_range=60_000), 2, 240, 2048,
        "minted token(s) 4-60000 (59997 ids) could not be imported", chain=True),
    # a 10 MB tokenURI answer (the node stands in for the contract: EVM memory for 10 MB costs more gas than a block
    # holds): it took 2.6 GB and ended in "error: out of memory"; cut off at 1 MiB, the token named, exit 1
    Row("token-uri-10mb", import_contract(8453, abi_string(10_000_000), calls=PER_TOKEN_CALLS, logs=one_mint), 1,
        60, 768, "tokenURI(1): the response is larger than 1048576 bytes"),
    # 3. the node checked, not trusted
    Row("logs-with-a-list-for-address", import_contract(8453, calls=PER_TOKEN_CALLS, logs=lambda query: [
        {**one_mint({"address": "0x" + "5a" * 20})[0], "address": [query["address"]]}]), 2, 60, 768,
        "answered eth_getLogs for"),
    Row("node-reports-chain-1-for-base", import_contract(1), 2, 60, 768,
        "the RPC reports chain id 1, but network 'base' is chain id 8453"),
    # 6. a full disk named on every command that writes (a tmpfs in a private mount namespace, as in round 2): SQLite
    # says "disk I/O error" when it cannot grow the WAL index, and "disk is full" for the pin set
    Row("full-disk-run-wal-index", lambda f, *_: Case(["run", str(ledger_with_log(f))], full_disk=8192), 1, 60, 1024,
        "disk full at"),
    Row("full-disk-run-fresh", lambda f, *_: Case(["run", str(collection(f))], full_disk=40_000), 1, 60, 1024,
        "disk full at"),
    Row("full-disk-export", lambda f, *_: Case(["export", str(imported_collection(f)), "-o", str(f / "out")],
                                               full_disk=0), 1, 60, 1024, "/images/1.png (needs "),
    # it generates its three pieces before the pin set fills the disk: minutes on a loaded machine
    Row("full-disk-run-pin-set", lambda f, *_: Case(["run", str(collection(f)), "--json"], full_disk=300_000), 1, 240,
        1024, "disk full at"),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=r.name, marks=[pytest.mark.anvil] if r.chain else [])
                                 for r in ROWS])
def test_round3_row(row: Row, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    run_row(row, tmp_path, request)


def test_a_10mb_call_answer_is_cut_off_as_it_arrives() -> None:
    """Item 2: a node answering an eth_call (tokenURI) with a 10 MB string: refused at MAX_CALL_ANSWER_BYTES in the
    HTTP read, holding a few MiB (the issue's run took 2.6 GB); eth_getLogs answers keep the larger cap."""
    import tracemalloc

    import requests
    from mintprep.chain.rpc import MAX_CALL_ANSWER_BYTES, answer_limit, connect

    with lying_node(8453, abi_string(10_000_000)) as url:
        w3 = connect(url)
        tracemalloc.start()
        with pytest.raises(requests.RequestException, match=f"larger than {MAX_CALL_ANSWER_BYTES} bytes"):
            w3.eth.call({"to": w3.to_checksum_address(CONTRACT), "data": "0xc87b56dd" + "00" * 32})
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes held while refusing"
    assert answer_limit(b'{"method":"eth_getLogs"}') > answer_limit(b'{"method":"eth_call"}') == MAX_CALL_ANSWER_BYTES


def log(address: str, topic: str, token_id: int, block: int) -> dict:
    """An eth_getLogs entry as a node answers it: a Transfer mint of `token_id` unless `topic` says otherwise."""
    return {"address": address, "topics": [topic, "0x" + "00" * 32, "0x" + "00" * 12 + "ab" * 20,
                                           f"0x{token_id:064x}"],
            "data": "0x", "blockNumber": hex(block), "transactionHash": "0x" + "11" * 32, "transactionIndex": "0x0",
            "blockHash": "0x" + "22" * 32, "logIndex": "0x0", "removed": False}


def test_a_node_refusing_all_but_one_block_ends_at_the_deadline_naming_it_and_the_range():
    """Item 3: head 5,000,000, a node refusing every range over one block: the scan stops at its deadline (here
    2 s) with a message naming the node and the range it refused, not one request per block for days."""
    import time

    from mintprep.base.errors import UserError
    from mintprep.chain.reads import transfer_logs
    from mintprep.chain.rpc import connect

    def one_block_only(query: dict) -> list | None:
        return [] if int(query["fromBlock"], 16) == int(query["toBlock"], 16) else None

    with lying_node(8453, logs=one_block_only) as url:
        started = time.monotonic()
        with pytest.raises(UserError) as refused:
            w3 = connect(url)
            transfer_logs(w3, w3.to_checksum_address(CONTRACT), 0, 5_000_000, deadline_s=2)
        took = time.monotonic() - started
    assert took < 10, f"{took:.1f} s"
    assert f"the RPC at {url}" in str(refused.value) and "within 2 s" in str(refused.value)
    assert "it refused blocks " in str(refused.value) and "query exceeds max block range" in str(refused.value)


def test_the_log_range_widens_again_after_a_refusal_and_keeps_only_this_contracts_transfers():
    """Item 3: a node that refuses wide ranges only near the start: after narrowing, the scan widens again (20
    requests for 100,000 blocks, where staying narrow took 160); the logs of another address or topic that the
    node appends are dropped."""
    from mintprep.chain.reads import TRANSFER_TOPIC, transfer_logs
    from mintprep.chain.rpc import connect

    asked: list[tuple[int, int]] = []
    other_topic = "0x" + "cd" * 32

    def narrow_at_first(query: dict) -> list | None:
        low, high = int(query["fromBlock"], 16), int(query["toBlock"], 16)
        asked.append((low, high))
        if low < 2_000 and high - low >= 1_000:
            return None
        ours = [log(CONTRACT, TRANSFER_TOPIC, low, low)]
        return ours + [log("0x" + "77" * 20, TRANSFER_TOPIC, 999, low), log(CONTRACT, other_topic, 998, low)]

    with lying_node(8453, logs=narrow_at_first) as url:
        w3 = connect(url)
        logs = transfer_logs(w3, w3.to_checksum_address(CONTRACT), 0, 99_999)
    accepted = [(low, high) for low, high in asked if not (low < 2_000 and high - low >= 1_000)]
    assert len(asked) <= 30, len(asked)
    assert max(high - low + 1 for low, high in accepted) == 10_000  # widened back to the full range
    assert sorted(int.from_bytes(bytes(entry["topics"][3]), "big") for entry in logs) == [low for low, _ in accepted]


def test_a_directory_pinned_by_import_is_walked_only_within_what_its_tokens_need():
    """Item 1: an image directory may hold more than the tokens' images (a large file beside them); import pins it
    within a bound (its tokens' share) and refuses past it, naming the DAG, instead of fetching all of it."""
    import os

    from mintprep.base.errors import UserError
    from mintprep.commands.importing.tokens import FetchedDag
    from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory

    profile = get_profile("kubo-cidv1")
    directory = import_directory({"1.png": import_bytes(dags.png(1), profile),
                                  "extra.bin": import_bytes(os.urandom(3 << 20), profile)}, profile)
    blocks = {block.cid: block.data for block in directory.blocks}
    fetched: list[object] = []

    def fetch(cid: Any) -> bytes | None:
        fetched.append(cid)
        return blocks.get(cid)

    with pytest.raises(UserError, match=f"the DAG under {directory.root} is more than .* bytes: more than its tokens"):
        list(FetchedDag(directory.root, fetch, 1_000_000).blocks)
    assert len(fetched) < len(blocks)
    assert len(list(FetchedDag(directory.root, fetch, 4 << 20).blocks)) == len(blocks)


@pytest.mark.parametrize("claimed", [True, False], ids=["root-claims-128MiB", "root-claims-1-byte"])
def test_a_27_level_diamond_is_refused_in_under_a_second(claimed: bool):
    """Item 1: a file DAG naming one child twice at each of 27 levels (2^27 reads of a 1-byte leaf) is refused in
    under a second as an image (64 MiB bound): from its root's claimed size, or, where the root lies about its size,
    from the walk's block budget (65,536 blocks for 64 MiB)."""
    import time

    from mintprep.guards.imported_content import MAX_IMPORTED_IMAGE_BYTES
    from mintprep.ipfs.dagpb import FILE, PBNode, UnixFSData, decode_pbnode
    from mintprep.ipfs.errors import FileTooLarge
    from mintprep.ipfs.reader import read_file

    blocks: dags.Blocks = {}
    root = dags.diamond_file(blocks)
    if not claimed:  # the same top node, saying it is 1 byte long
        links = decode_pbnode(blocks[root]).links
        root = dags.put(blocks, PBNode(links, UnixFSData(FILE, filesize=1, blocksizes=(1, 0)).encode()).encode())
    started = time.monotonic()
    with pytest.raises(FileTooLarge):
        read_file(root, blocks.get, MAX_IMPORTED_IMAGE_BYTES)
    assert time.monotonic() - started < 1.0


def test_a_hamt_naming_one_subshard_256_times_is_refused_in_under_a_second():
    import time

    from mintprep.ipfs.errors import CorruptBlock
    from mintprep.ipfs.reader import list_directory

    blocks: dags.Blocks = {}
    root = dags.hamt_one_subshard(blocks)
    started = time.monotonic()
    with pytest.raises(CorruptBlock, match="a HAMT shard linked twice"):
        list_directory(root, blocks.get)
    assert time.monotonic() - started < 1.0
