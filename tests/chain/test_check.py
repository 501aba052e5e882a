"""`check_collection`: collection.yaml and the ledger against a MintprepDrop on a real anvil node (chain id 8453)."""

from __future__ import annotations

import json
import secrets

import pytest

from mintprep.chain.artifact import load_artifact
from mintprep.chain.check import check_collection
from mintprep.chain.costs import GAS_PRICE_ORACLE
from mintprep.base.errors import UserError
from mintprep.state.ledger import Ledger
from mintprep.stages.page import ChainGate, chain_gate
from mintprep.state.workspace import Workspace
from tests.chain.conftest import (METADATA_ROOT, DeployedCollection, chain_collection, deploy_for,
                                  record_metadata_root)

PRICE_WEI = 630_000_000_000_000


def check(col):
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        return check_collection(col, ledger)


def test_matching_deployment_passes_with_every_field_compared(deployed_collection: DeployedCollection):
    report = check(deployed_collection.col)
    assert report.ok, report.to_json()
    compared = {row.field: row for row in report.rows}
    for field in ("chain_id", "code", "runtime_code", "max_supply", "owner", "base_uri", "contract_uri", "royalty",
                  "phase_count", "phases.0.start", "phases.0.end", "phases.0.price", "phases.0.max_per_wallet",
                  "phases.0.max_mints", "phases.0.allowlist_root"):
        assert compared[field].ok is True, field
    assert compared["phases.0.price"].on_chain == f"{PRICE_WEI} wei (0.00063 ETH)"
    # No `start` in the config: the contract stores 0, open from the deploy on, and says so (not 1970-01-01).
    assert compared["phases.0.start"].on_chain == "0 (from deploy)"
    assert compared["base_uri"].on_chain == f"ipfs://{METADATA_ROOT}/"
    # ERC-7572: deploy pointed contractURI at the collection.json beside the token files.
    assert compared["contract_uri"].on_chain == f"ipfs://{METADATA_ROOT}/collection.json"
    assert compared["owner"].on_chain == deployed_collection.chain.owner.address
    assert compared["total_minted"].on_chain == "0" and compared["total_minted"].ok is None
    one, five = report.mint_costs
    assert (one.quantity, five.quantity) == (1, 5)
    assert 60_000 < one.gas < 200_000 and one.gas < five.gas < 5 * one.gas
    assert one.l1_fee_wei is None  # anvil has no GasPriceOracle predeploy
    assert report.to_json()["mismatches"] == []


def test_price_off_by_one_wei_on_chain_is_named(deployed_collection: DeployedCollection):
    drop = deployed_collection.chain.w3.eth.contract(address=deployed_collection.deployed.address, abi=load_artifact().abi)
    drop.functions.setPhase(0, (0, 2**64 - 1, PRICE_WEI + 1, 5, 0, b"\x00" * 32)).transact(
        {"from": deployed_collection.chain.owner.address})
    report = check(deployed_collection.col)
    assert report.mismatches == ["phases.0.price"]
    row = report.row("phases.0.price")
    assert (row.expected, row.on_chain) == (f"{PRICE_WEI} wei (0.00063 ETH)", f"{PRICE_WEI + 1} wei (0.000630000000000001 ETH)")
    assert "setPhase(0" in row.fix


def test_price_typed_ten_times_too_high_in_config_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(mint_price="0.0063"))
    assert report.mismatches == ["phases.0.price"]


def test_wallet_cap_that_differs_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(max_per_wallet=50))
    assert report.mismatches == ["phases.0.max_per_wallet"]
    row = report.row("phases.0.max_per_wallet")
    assert (row.expected, row.on_chain) == ("50", "5")


def test_supply_that_differs_from_collection_size_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_spec(size=78))
    assert report.mismatches == ["max_supply"]


def test_wrong_chain_id_is_named(deployed_collection: DeployedCollection):
    # The node is Base (8453); a collection that says base-sepolia (84532) must not pass against it.
    report = check(deployed_collection.with_chain(network="base-sepolia"))
    assert "chain_id" in report.mismatches
    assert (report.row("chain_id").expected, report.row("chain_id").on_chain) == ("84532", "8453")


def other_contract(deployed_collection: DeployedCollection, address: str):
    """A collection with no ledger of its own naming `address` (a yaml naming another address than its ledger's
    deployment is an error of its own)."""
    col = chain_collection(deployed_collection.col.base_dir.parent / "other", deployed_collection.chain.node.url,
                           contract=address)
    Ledger.open(col.state_dir).close()  # an empty ledger
    return col


def test_no_code_at_the_address_is_named_and_the_rest_is_not_read(deployed_collection: DeployedCollection):
    empty = deployed_collection.chain.w3.to_checksum_address("0x" + secrets.token_hex(20))
    report = check(other_contract(deployed_collection, empty))
    assert report.mismatches == ["code"]
    assert report.row("base_uri").ok is None and "no code" in report.row("base_uri").on_chain
    assert report.mint_costs == ()


def test_stale_base_uri_is_named_after_new_metadata_is_pinned(deployed_collection: DeployedCollection):
    record_metadata_root(deployed_collection.col, "bafybeinewroot")
    report = check(deployed_collection.col)
    assert report.mismatches == ["base_uri", "contract_uri"]
    row = report.row("base_uri")
    assert (row.expected, row.on_chain) == ("ipfs://bafybeinewroot/", f"ipfs://{METADATA_ROOT}/")


def test_owner_other_than_configured_is_named(deployed_collection: DeployedCollection):
    report = check(deployed_collection.with_chain(owner=deployed_collection.chain.accounts[3].address))
    assert report.mismatches == ["owner"]


def test_contract_that_is_not_a_drop_is_named(deployed_collection: DeployedCollection, chain):
    chain.w3.provider.make_request("anvil_setCode", [GAS_PRICE_ORACLE, "0x00"])  # code that answers nothing
    report = check(other_contract(deployed_collection, GAS_PRICE_ORACLE))
    assert report.mismatches == ["runtime_code", "interface"]


def test_l1_data_fee_from_the_gas_price_oracle_is_added(deployed_collection: DeployedCollection, chain):
    """A stand-in GasPriceOracle at Base's predeploy address answers every call with 123456789 wei."""
    # PUSH4 123456789, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
    chain.w3.provider.make_request("anvil_setCode", [GAS_PRICE_ORACLE, "0x63075bcd1560005260206000f3"])
    report = check(deployed_collection.col)
    assert report.ok
    for cost in report.mint_costs:
        assert cost.l1_fee_wei == 123456789
        assert cost.total_fee_wei == cost.l2_fee_wei + 123456789


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
    with Workspace.open(fresh) as ws:
        assert chain_gate(ws) == ChainGate(None, None)
    # Deployed but chain.contract not yet pasted into the YAML: the ledger's deployment is found and checked.
    unpasted = deployed_collection.with_chain(contract=None)
    with Workspace.open(unpasted, readonly=True) as ws:
        gated = chain_gate(ws)
    assert gated.blocked is None
    assert gated.check["ok"] and gated.check["address"] == deployed_collection.deployed.address


def test_without_a_ledger_the_base_uri_is_shown_not_compared(deployed_collection: DeployedCollection):
    report = check_collection(deployed_collection.col, None)
    assert report.ok
    assert report.row("base_uri").ok is None and report.row("owner").ok is None


# -- phases and allowlists --------------------------------------------------------------------------------------

LISTED = ["0x" + f"{i:040x}" for i in range(1, 6)]
PHASES = [
    {"name": "early", "start": "2030-01-01T00:00:00Z", "end": "2030-01-02T00:00:00Z", "price": "0.0005",
     "max_per_wallet": 2, "max_mints": 40, "allowlist": "early.txt"},
    {"name": "public", "start": "2030-01-02T00:00:00Z", "price": "0.001", "max_per_wallet": 5},
]


@pytest.fixture
def phased(chain, tmp_path):
    folder = tmp_path / "phased"
    folder.mkdir()
    (folder / "early.txt").write_text("# friends\n" + "\n".join(LISTED) + "\n")
    col = chain_collection(folder, chain.node.url, mint_price=None, max_per_wallet=None, phases=PHASES)
    record_metadata_root(col, METADATA_ROOT)
    deployed = deploy_for(col, chain.owner)
    col = chain_collection(folder, chain.node.url, mint_price=None, max_per_wallet=None, phases=PHASES,
                           contract=deployed.address)
    return DeployedCollection(col=col, deployed=deployed, chain=chain)


def with_phases(d: DeployedCollection, phases):
    return chain_collection(d.col.base_dir, d.chain.node.url, mint_price=None, max_per_wallet=None, phases=phases,
                            contract=d.deployed.address)


def test_phased_deployment_matches_with_every_listed_address_proving(phased: DeployedCollection):
    report = check(phased.col)
    assert report.ok, report.to_json()
    assert report.row("phase_count").on_chain == "2"
    assert report.row("phases.0.start").on_chain == "1893456000 (2030-01-01T00:00:00Z)"
    assert report.row("phases.1.end").on_chain == "never"
    assert report.row("phases.0.allowlist_proofs").on_chain == "5 of 5 prove"
    assert report.mint_costs == () and report.mint_cost_note == "no phase is open now"


@pytest.mark.parametrize("field, value, mismatch", [
    ("start", "2030-01-01T00:00:01Z", "phases.0.start"),
    ("end", "2030-01-01T23:59:59Z", "phases.0.end"),
    ("price", "0.0005000000000001", "phases.0.price"),
    ("max_per_wallet", 3, "phases.0.max_per_wallet"),
    ("max_mints", 41, "phases.0.max_mints"),
])
def test_a_drift_in_each_phase_field_is_named(phased: DeployedCollection, field, value, mismatch):
    changed = [dict(PHASES[0], **{field: value}), PHASES[1]]
    assert check(with_phases(phased, changed)).mismatches == [mismatch]


def test_an_allowlist_file_whose_root_is_not_on_chain_is_named(phased: DeployedCollection):
    (phased.col.base_dir / "early.txt").write_text("\n".join(LISTED + ["0x" + "ab" * 20]))
    report = check(phased.col)
    assert "phases.0.allowlist_root" in report.mismatches
    # The five old addresses' proofs come from the new tree, so none reaches the deployed root.
    assert report.row("phases.0.allowlist_proofs").ok is False


def test_a_listed_address_whose_published_proof_fails_is_named(phased: DeployedCollection):
    """The site's allowlist files (what buyers' browsers use) are corrupted for one address: check names it."""
    from mintprep.chain.phases import collection_phases
    from mintprep.page.allowlists import allowlist_files

    files = allowlist_files(collection_phases(phased.col))
    shards = {path: json.loads(data) for path, data in files.items() if path.startswith("allowlist/0/a/")}
    entries = [(path, address) for path, shard in sorted(shards.items()) for address in shard]
    (victim_path, victim), (_, other) = entries[2], entries[0]
    shards[victim_path][victim] = shards[entries[0][0]][other]  # its entry points at another address's leaf
    for path, data in files.items():
        (phased.col.page_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (phased.col.page_dir / path).write_bytes(json.dumps(shards[path]).encode() if path in shards else data)
    report = check(phased.col)
    assert report.mismatches == ["phases.0.allowlist_proofs"]
    row = report.row("phases.0.allowlist_proofs")
    assert row.on_chain.startswith("4 of 5 prove; first failing: ") and victim in row.on_chain.lower()
    assert report.row("phases.0.allowlist_root").ok is True


def test_a_phase_missing_on_chain_is_named(phased: DeployedCollection):
    extra = {"name": "late", "start": "2031-01-01T00:00:00Z", "price": "0.002", "max_per_wallet": 1}
    report = check(with_phases(phased, PHASES + [extra]))
    assert report.mismatches == ["phase_count"]


def test_runtime_code_ignores_the_metadata_hash_but_not_a_changed_instruction(deployed_collection: DeployedCollection):
    w3, address = deployed_collection.chain.w3, deployed_collection.deployed.address
    code = bytearray(w3.eth.get_code(address))
    metadata_length = int.from_bytes(code[-2:], "big")
    other_metadata = bytearray(code)
    other_metadata[-metadata_length] ^= 0xFF  # inside the CBOR metadata (its IPFS hash of the source metadata)
    w3.provider.make_request("anvil_setCode", [address, "0x" + bytes(other_metadata).hex()])
    assert check(deployed_collection.col).row("runtime_code").ok is True
    changed = bytearray(code)
    changed[10] ^= 0x01  # an instruction byte near the start (the dispatcher), outside every immutable
    w3.provider.make_request("anvil_setCode", [address, "0x" + bytes(changed).hex()])
    assert "runtime_code" in check(deployed_collection.col).mismatches


def test_configured_payouts_and_royalty_are_checked(chain, tmp_path):
    a, b = chain.accounts[6].address, chain.accounts[7].address
    col = chain_collection(tmp_path / "split", chain.node.url, payouts={a: 70, b: 30}, royalty_bps=500)
    record_metadata_root(col, METADATA_ROOT)
    deployed = deploy_for(col, chain.owner)
    settings = {"payouts": {a: 70, b: 30}, "royalty_bps": 500, "contract": deployed.address}
    report = check(chain_collection(col.base_dir, chain.node.url, **settings))
    assert report.ok, report.to_json()
    assert report.row("payouts").on_chain == f"{a}: 70, {b}: 30"
    assert report.row("royalty").on_chain == f"500 bps to {chain.owner.address}"
    drifted = check(chain_collection(col.base_dir, chain.node.url, **{**settings, "payouts": {a: 60, b: 40},
                                                                       "royalty_bps": 750}))
    assert drifted.mismatches == ["royalty", "payouts"]
