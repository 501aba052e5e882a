"""`mintprep check` on the contract a creator already has: HashLips' SimpleNft.sol and SimpleNftLowerGas.sol
(tests.support.platforms: built from HashLips' source, 20 tokens, 3 sold, 0.00063 ETH, 5 per transaction) on anvil.
check reads the sale through the contract's profile: a matching collection.yaml passes; a one-wei price drift, a
per-wallet limit the contract does not enforce, a supply drift and a paused sale are each a named mismatch whose
fix is the owner's own setter (printable with --print-tx), never "redeploy"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from eth_abi import decode
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.cli.app import app
from tests.conftest import write_collection
from tests.support.anvil import Chain
from tests.support.platforms import LIMIT, NATIVE_TOKEN, PRICE_WEI, SIZE, deploy_platform

SETTERS = {"hashlips-lower-gas": ("setCost", "setMaxMintAmountPerTx", "setPaused"),
           "hashlips-simple": ("setCost", "setmaxMintAmount", "pause")}


def without_wallet_cap(path: Path) -> Path:
    """The example's chain.max_per_wallet taken out: a yaml that says what a HashLips contract enforces."""
    data = yaml.safe_load(path.read_text())
    del data["chain"]["max_per_wallet"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def check(path: Path, *extra: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["check", str(path), "--json", *extra])
    return result.exit_code, json.loads(result.stdout.splitlines()[0] if "--print-tx" in extra else result.stdout)


def rows(report: dict) -> dict[str, dict]:
    return {row["field"]: row for row in report["rows"]}


@pytest.mark.parametrize("family", sorted(SETTERS))
def test_check_compares_price_limits_supply_and_pause_through_the_profile(family: str, chain: Chain, tmp_path: Path):
    made = deploy_platform(family, chain, tmp_path / "node")
    set_cost, set_cap, set_paused = SETTERS[family]
    fields = dict(size=SIZE, chain__rpc_url=chain.node.url, chain__contract=made.address,
                  chain__mint_price="0.00063", chain__max_per_tx=LIMIT)
    matching = without_wallet_cap(write_collection(tmp_path / "ok", **fields))
    code, report = check(matching)
    assert code == 0, report["mismatches"]
    assert report["family"] == family and rows(report)["max_per_tx"]["on_chain"] == "5"
    assert rows(report)["price"]["ok"] is True and rows(report)["paused"]["on_chain"] == "open"

    per_wallet = write_collection(tmp_path / "wallet", **{**fields, "chain__max_per_tx": None})  # the example's 5
    code, report = check(per_wallet)
    limit = rows(report)["max_per_wallet"]
    assert code == 1 and report["mismatches"] == ["max_per_wallet"]
    assert limit["on_chain"] == "5 per transaction and nothing per wallet"
    assert "the contract caps 5 per transaction and nothing per wallet" in limit["fix"]
    assert "max_per_tx: 5" in limit["fix"]

    drifted = without_wallet_cap(write_collection(tmp_path / "drift", **{**fields, "size": SIZE + 1,
                                                                          "chain__max_per_tx": 3}))
    made.transact(made.contract.functions.setCost(PRICE_WEI + 1))
    made.transact(getattr(made.contract.functions, set_paused)(True))
    code, report = check(drifted)
    found = rows(report)
    assert code == 1 and sorted(report["mismatches"]) == ["max_per_tx", "max_supply", "paused", "price"]
    assert found["price"]["on_chain"].startswith(f"{PRICE_WEI + 1} wei")
    assert f"{set_cost}({PRICE_WEI})" in found["price"]["fix"] and f"{set_cap}(3)" in found["max_per_tx"]["fix"]
    assert f"{set_paused}(false)" in found["paused"]["fix"]
    assert f"size: {SIZE}" in found["max_supply"]["fix"]
    assert not any("redeploy" in (row["fix"] or "") for row in report["rows"])

    result = CliRunner().invoke(app, ["check", str(drifted), "--print-tx"])
    calls = [json.loads(line) for line in result.output.splitlines() if line.startswith('{"to"')]
    assert {c["function"].split("(")[0]: c["args"] for c in calls} == {set_cost: [PRICE_WEI], set_cap: [3],
                                                                       set_paused: [False]}
    price_call = next(c for c in calls if c["function"].startswith(set_cost))
    assert price_call["to"] == made.address
    assert decode(["uint256"], bytes.fromhex(price_call["data"][10:])) == (PRICE_WEI,)


def test_the_chain_gate_lets_a_matching_sale_on_another_family_build_its_page(chain: Chain, tmp_path: Path):
    """The page mints on HashLips' mint(n) (mintprep.page.mint_call): a sale that matches collection.yaml blocks
    nothing; whether the page can mint is said by the page itself (PageCannotMint), not by the chain gate."""
    made = deploy_platform("hashlips-lower-gas", chain, tmp_path / "node")
    path = without_wallet_cap(write_collection(tmp_path / "col", size=SIZE, chain__rpc_url=chain.node.url,
                                               chain__contract=made.address, chain__mint_price="0.00063",
                                               chain__max_per_tx=LIMIT))
    from mintprep.collection.config import load_collection
    from mintprep.stages.page import chain_gate
    from mintprep.state.workspace import Workspace

    with Workspace.open(load_collection(path)) as ws:
        gate = chain_gate(ws)
    assert gate.check is not None and gate.check["ok"] and gate.check["family"] == "hashlips-lower-gas"
    assert gate.blocked is None


STRUCT_SETTERS = {"zora-drop": "setSaleConfiguration", "thirdweb-drop": "setClaimConditions"}


def drift_struct_sale(made, family: str, price: int, per_wallet: int, start: int) -> None:
    """The admin rewrites the family's sale struct: price, per-wallet cap, start."""
    if family == "zora-drop":
        made.transact(made.contract.functions.setSaleConfiguration(price, per_wallet, start, 2**64 - 1, 0, 0,
                                                                    b"\x00" * 32))
    else:
        condition = (start, SIZE, 0, per_wallet, b"\x00" * 32, price, NATIVE_TOKEN, "")
        made.transact(made.contract.functions.setClaimConditions([condition], False))


@pytest.mark.parametrize("family", sorted(STRUCT_SETTERS))
def test_check_reads_zoras_sale_configuration_and_thirdwebs_claim_condition(family: str, chain: Chain,
                                                                             tmp_path: Path):
    """Zora ERC721Drop (npm @zoralabs/nft-drop-contracts 1.14.1) and thirdweb DropERC721 (npm @thirdweb-dev/contracts
    3.15.0), both behind their proxies: the example's 0.00063 ETH and 5 per wallet match; a one-wei price, a
    per-wallet drift and a sale not yet open are named, with the one setter call that rewrites the sale."""
    made = deploy_platform(family, chain, tmp_path / "node")
    fields = dict(size=SIZE, chain__rpc_url=chain.node.url, chain__contract=made.address)
    matching = write_collection(tmp_path / "ok", **fields)
    code, report = check(matching)
    assert code == 0, report["mismatches"]
    assert report["family"] == family and rows(report)["sale_open"]["on_chain"] == "open"

    per_tx = without_wallet_cap(write_collection(tmp_path / "tx", **fields, chain__max_per_tx=LIMIT))
    code, report = check(per_tx)
    assert code == 1 and report["mismatches"] == ["max_per_tx"]
    assert "the contract caps nothing per transaction and 5 per wallet" in rows(report)["max_per_tx"]["fix"]

    later = chain.w3.eth.get_block("latest")["timestamp"] + 86_400
    drift_struct_sale(made, family, PRICE_WEI + 1, 3, later)
    code, report = check(matching)
    assert code == 1 and report["mismatches"] == ["price", "max_per_wallet", "sale_open"]
    setter = STRUCT_SETTERS[family]
    assert all(setter in rows(report)[field]["fix"] for field in report["mismatches"])
    [call] = report["fix_transactions"]
    assert call["function"].startswith(setter) and call["to"] == made.address
    if family == "zora-drop":
        assert call["args"][:3] == [PRICE_WEI, LIMIT, 0]
    else:
        [[condition], reset] = call["args"]
        assert (condition[0], condition[3], condition[5], reset) == (0, LIMIT, PRICE_WEI, False)

