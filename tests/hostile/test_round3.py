"""Hostile input, round 3 (issue 31): a stranger's DAG, contract and node. One row per attack, each run as a real
`python -m mintprep` process under a memory limit (RLIMIT_AS) and a time limit, with the exit status it must end
with and a text its answer must contain (the row runner is round 2's: tests/test_hostile_round2.py).

IPFS content comes from a trustless gateway stand-in on 127.0.0.1 (tests/hostile/dags.py) answering the trustless
gateway specification's `?format=raw` block requests with hand-built hostile blocks.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from tests.hostile import dags
from tests.hostile.node import abi_string, lying_node
from tests.test_hostile_round2 import Case, Row, collection, ledger_with_log, test_hostile_row as run_row


def import_root(make_root: Any) -> Any:
    """A row's setup: `import --from ipfs://<root>` of the root `make_root(blocks)` builds, through the stand-in."""
    def setup(folder: Path, _: Any, stack: contextlib.ExitStack) -> Case:
        blocks: dags.Blocks = {}
        root = make_root(blocks)
        url = stack.enter_context(dags.block_gateway(blocks))
        return Case(["import", str(collection(folder)), "--from", f"ipfs://{root}", "--gateway", url])

    return setup


CONTRACT = "0x" + "5a" * 20


def import_contract(chain_id: int, call_answer: str = "0x") -> Any:
    """A row's setup: `import --from <contract>` of a Base collection through a lying node (tests/hostile/node.py)."""
    def setup(folder: Path, _: Any, stack: contextlib.ExitStack) -> Case:
        url = stack.enter_context(lying_node(chain_id, call_answer))
        path = collection(folder, chain={"network": "base", "rpc_url": url})
        return Case(["import", str(path), "--from", CONTRACT])

    return setup


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
    # 3. the node checked, not trusted
    Row("node-reports-chain-1-for-base", import_contract(1), 2, 60, 768,
        "the RPC reports chain id 1, but network 'base' is chain id 8453"),
    # 6. a full disk named on every command that writes (a tmpfs in a private mount namespace, as in round 2): SQLite
    # says "disk I/O error" when it cannot grow the WAL index, and "disk is full" for the pin set
    Row("full-disk-run-wal-index", lambda f, *_: Case(["run", str(ledger_with_log(f))], full_disk=8192), 1, 60, 1024,
        "disk full at"),
    Row("full-disk-run-fresh", lambda f, *_: Case(["run", str(collection(f))], full_disk=40_000), 1, 60, 1024,
        "disk full at"),
    Row("full-disk-run-pin-set", lambda f, *_: Case(["run", str(collection(f)), "--json"], full_disk=300_000), 1, 60,
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
