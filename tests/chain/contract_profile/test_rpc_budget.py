"""JSON-RPC calls per command, counted through a proxy in front of anvil (tests.support.rpc_count): a 20-piece
MintprepDrop collection with 3 minted (imported from the contract, its art on the creator's own IPFS node behind a
local trustless gateway). Each command stays within 30 calls plus one per minted token, eth_chainId at most
twice: on a public Base endpoint with a rate limit, chatter is the slowest part of a command. The repair replaces
two broken unminted pieces and sends one setBaseURI. Measured before the contract profile (same test on the
parent commit): import 21 calls (11 eth_chainId), audit 83 (49), repair 315 (187), run 80 (49), check 56 (34);
after: import 9 (2), audit 11 (2), repair 29 (2), run 27 (2), check 24 (2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain import rpc
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli.app import app
from mintprep.ipfs.gateway import serve_gateway
from tests.chain.families.shapes import Shape, deploy_shape
from tests.conftest import write_collection
from tests.support.anvil import Chain
from tests.support.rpc_count import counting_proxy

SHAPE = Shape("mintprep-drop", 1, ".json", {5: "black", 9: "grey"}, minted=3, size=20)  # two unminted broken
BUDGET = 30 + SHAPE.minted


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_each_command_reads_the_chain_once(chain: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    foreign, contract = deploy_shape(SHAPE, chain, tmp_path / "their-ipfs-node")
    server = serve_gateway(foreign.store)
    gateway = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    counts = {}
    try:
        with counting_proxy(chain.node.url) as (url, count):
            path = write_collection(tmp_path / "col", size=SHAPE.size, generator__steps=3, generator__upscale=1,
                                    chain__rpc_url=url, ipfs__gateways=[gateway])
            for name, args in (("import", ("import", str(path), "--from", contract.address)),
                               ("audit", ("audit", str(path))),
                               ("repair", ("audit", str(path), "--repair")),
                               ("run", ("run", str(path))),
                               ("check", ("check", str(path)))):
                rpc._CONNECTED.clear()  # each command as its own process: nothing known of the node yet
                count.take()
                code, answer = cli(*args)
                assert code in (0, 1), (name, answer)
                counts[name] = count.take()
                if name == "repair":
                    assert answer["status"] == "repaired" and answer["plan"]["base_uri_tx"], answer
    finally:
        server.shutdown()
    report = {name: (sum(c.values()), c["eth_chainId"], dict(c)) for name, c in counts.items()}
    assert counts["repair"]["eth_sendRawTransaction"] == 1, "the repair sent its one setter call"
    print(json.dumps(report, indent=1))
    over = {name: r[:2] for name, r in report.items() if r[0] > BUDGET or r[1] > 2}
    assert over == {}, f"over {BUDGET} calls or 2 eth_chainId: {over}"
