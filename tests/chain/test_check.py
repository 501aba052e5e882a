"""`check_collection`: collection.yaml and the ledger against a MintprepDrop on a real anvil node (chain id 8453)."""

from __future__ import annotations

import secrets

import pytest

from mintprep.chain.artifact import load_artifact
from mintprep.chain.check import check_collection, check_if_deployed
from mintprep.chain.costs import GAS_PRICE_ORACLE
from mintprep.errors import UserError
from mintprep.ledger import Ledger
from tests.chain.conftest import METADATA_ROOT, DeployedCollection, chain_collection, record_metadata_root

PRICE_WEI = 630_000_000_000_000


def check(col):
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        return check_collection(col, ledger)


def test_matching_deployment_passes_with_every_field_compared(deployed_collection: DeployedCollection):
    report = check(deployed_collection.col)
    assert report.ok, report.to_json()
    compared = {row.field: row for row in report.rows}
    for field in ("chain_id", "code", "mint_price", "max_per_wallet", "max_supply", "owner", "base_uri"):
        assert compared[field].ok is True, field
    assert compared["mint_price"].on_chain == f"{PRICE_WEI} wei (0.00063 ETH)"
    assert compared["base_uri"].on_chain == f"ipfs://{METADATA_ROOT}/"
    assert compared["owner"].on_chain == deployed_collection.chain.owner.address
    assert compared["total_minted"].on_chain == "0" and compared["total_minted"].ok is None
    assert report.mint_cost is not None and 60_000 < report.mint_cost.gas < 200_000
    assert report.mint_cost.l1_fee_wei is None  # anvil has no GasPriceOracle predeploy
    assert report.to_json()["mismatches"] == []


def test_price_off_by_one_wei_on_chain_is_named(deployed_collection: DeployedCollection):
    drop = deployed_collection.chain.w3.eth.contract(address=deployed_collection.deployed.address, abi=load_artifact().abi)
    drop.functions.setMintPrice(PRICE_WEI + 1).transact({"from": deployed_collection.chain.owner.address})
    report = check(deployed_collection.col)
    assert report.mismatches == ["mint_price"]
    row = report.row("mint_price")
    assert (row.expected, row.on_chain) == (f"{PRICE_WEI} wei (0.00063 ETH)", f"{PRICE_WEI + 1} wei (0.000630000000000001 ETH)")
    assert row.fix.endswith(f"call setMintPrice({PRICE_WEI})")


def test_price_typed_ten_times_too_high_in_config_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(mint_price="0.0063"))
    assert report.mismatches == ["mint_price"]


def test_wallet_cap_that_differs_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(max_per_wallet=50))
    assert report.mismatches == ["max_per_wallet"]
    assert (report.row("max_per_wallet").expected, report.row("max_per_wallet").on_chain) == ("50", "5")


def test_supply_that_differs_from_collection_size_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_spec(size=78))
    assert report.mismatches == ["max_supply"]


def test_wrong_chain_id_is_named(deployed_collection: DeployedCollection):
    # The node is Base (8453); a collection that says base-sepolia (84532) must not pass against it.
    report = check(deployed_collection.with_chain(network="base-sepolia"))
    assert "chain_id" in report.mismatches
    assert (report.row("chain_id").expected, report.row("chain_id").on_chain) == ("84532", "8453")


def test_no_code_at_the_address_is_named_and_the_rest_is_not_read(deployed_collection: DeployedCollection):
    empty = deployed_collection.chain.w3.to_checksum_address("0x" + secrets.token_hex(20))
    report = check(deployed_collection.with_chain(contract=empty))
    assert report.mismatches == ["code"]
    assert report.row("mint_price").ok is None and "no code" in report.row("mint_price").on_chain
    assert report.mint_cost is None


def test_stale_base_uri_is_named_after_new_metadata_is_pinned(deployed_collection: DeployedCollection):
    record_metadata_root(deployed_collection.col, "bafybeinewroot")
    report = check(deployed_collection.col)
    assert report.mismatches == ["base_uri"]
    row = report.row("base_uri")
    assert (row.expected, row.on_chain) == ("ipfs://bafybeinewroot/", f"ipfs://{METADATA_ROOT}/")


def test_owner_other_than_configured_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(owner=deployed_collection.chain.accounts[3].address))
    assert report.mismatches == ["owner"]


def test_contract_that_is_not_a_drop_is_named(deployed_collection: DeployedCollection, chain):
    chain.w3.provider.make_request("anvil_setCode", [GAS_PRICE_ORACLE, "0x00"])  # code that answers nothing
    report = check(deployed_collection.with_chain(contract=GAS_PRICE_ORACLE))
    assert report.mismatches == ["interface"]


def test_l1_data_fee_from_the_gas_price_oracle_is_added(deployed_collection: DeployedCollection, chain):
    """A stand-in GasPriceOracle at Base's predeploy address answers every call with 123456789 wei."""
    # PUSH4 123456789, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
    chain.w3.provider.make_request("anvil_setCode", [GAS_PRICE_ORACLE, "0x63075bcd1560005260206000f3"])
    report = check(deployed_collection.col)
    assert report.ok
    assert report.mint_cost.l1_fee_wei == 123456789
    assert report.mint_cost.total_fee_wei == report.mint_cost.l2_fee_wei + 123456789


def test_unreachable_rpc_is_a_user_error_naming_the_url(deployed_collection: DeployedCollection):
    col = deployed_collection.with_chain(rpc_url="http://127.0.0.1:9/v2/supersecretapikey123456")
    with pytest.raises(UserError) as caught:
        check(col)
    message = str(caught.value)
    assert "http://127.0.0.1:9/v2/***" in message and "Connection refused" in message
    assert "supersecretapikey" not in message
    assert caught.value.exit_code == 2


def test_no_contract_anywhere_is_a_user_error(tmp_path, chain):
    col = chain_collection(tmp_path / "fresh", chain.node.url)
    with pytest.raises(UserError, match="no contract on base"):
        check_collection(col, None)


def test_run_gate_skips_a_collection_without_contract_and_checks_a_deployed_one(
    tmp_path, chain, deployed_collection: DeployedCollection
):
    fresh = chain_collection(tmp_path / "fresh", chain.node.url)
    assert check_if_deployed(fresh, None) is None
    # Deployed but chain.contract not yet pasted into the YAML: the ledger's deployment is found and checked.
    unpasted = deployed_collection.with_chain(contract=None)
    with Ledger.open(unpasted.state_dir, readonly=True) as ledger:
        report = check_if_deployed(unpasted, ledger)
    assert report is not None and report.ok and report.address == deployed_collection.deployed.address


def test_without_a_ledger_the_base_uri_is_shown_not_compared(deployed_collection: DeployedCollection):
    report = check_collection(deployed_collection.col, None)
    assert report.ok
    assert report.row("base_uri").ok is None and report.row("owner").ok is None
