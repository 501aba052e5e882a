"""chain.phases / payouts / reveal in collection.yaml, and which RPC the page is built for (no node needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.chain.phases import collection_phases
from mintprep.collection.chain_settings import NEVER
from mintprep.cli import app
from mintprep.collection.config import load_collection
from mintprep.base.errors import ConfigError, UserError
from mintprep.page.publish import page_rpc_url
from tests.conftest import write_collection

PHASE = {"name": "early", "start": "2030-01-01T00:00:00Z", "end": "2030-01-02T00:00:00Z", "price": "0.001",
         "max_per_wallet": 2}


def load(tmp_path: Path, **chain):
    return load_collection(write_collection(tmp_path / "col", chain={"network": "base", **chain}))


def test_plain_price_config_is_one_public_phase(tmp_path):
    (phase,) = collection_phases(load(tmp_path, mint_price="0.00063", max_per_wallet=4))
    on_chain = phase.on_chain()
    assert (phase.name, on_chain.start, on_chain.end, on_chain.price, on_chain.max_per_wallet, on_chain.max_mints) == (
        "public", 0, NEVER, 630_000_000_000_000, 4, 0)
    assert on_chain.allowlist_root == b"\x00" * 32


def test_phase_times_in_iso_or_unix_seconds(tmp_path):
    col = load(tmp_path, phases=[PHASE, {"name": "public", "start": 1893542400, "price": "0.002"}])
    early, public = (p.on_chain() for p in collection_phases(col))
    assert (early.start, early.end) == (1893456000, 1893542400)
    assert (public.start, public.end) == (1893542400, NEVER)


@pytest.mark.parametrize("chain, expected", [
    ({"phases": [{**PHASE, "start": "2030-01-01T00:00:00"}]}, "chain.phases.0.start: needs a timezone"),
    ({"phases": [{**PHASE, "end": "2029-12-31T00:00:00Z"}]}, "start must be before end"),
    ({"phases": [{**PHASE, "price": 0.001}]}, "chain.phases.0.price: must be a decimal string"),
    ({"phases": [PHASE], "mint_price": "0.001"}, "set price and max_per_wallet on each phase"),
    ({"phases": [PHASE, PHASE]}, "two phases have the same name"),
    ({"payouts": {"0x" + "11" * 20: 0}}, "shares must be a whole number ≥ 1"),
    ({"reveal": {"placeholder_uri": "ftp://x"}}, "chain.reveal.placeholder_uri: must be an ipfs:// or https://"),
])
def test_bad_sale_settings_exit_2_naming_the_field(tmp_path, chain, expected):
    path = write_collection(tmp_path / "col", chain={"network": "base", **chain})
    result = CliRunner().invoke(app, ["check", str(path), "--json"])
    assert result.exit_code == 2
    assert expected in result.stdout + result.stderr


def test_an_allowlist_file_with_a_bad_line_is_named(tmp_path):
    col = load(tmp_path, phases=[{**PHASE, "allowlist": "list.txt"}])
    (col.base_dir / "list.txt").write_text("address\n0x" + "11" * 20 + "\nnot-an-address\n")
    with pytest.raises(ConfigError, match=r"chain.phases.0.allowlist: .*list.txt line 3: not an address"):
        collection_phases(col)
    (col.base_dir / "list.txt").write_text("0x" + "11" * 20 + "\n0x" + "11" * 20 + "\n")
    with pytest.raises(ConfigError, match="twice"):
        collection_phases(col)
    (col.base_dir / "list.txt").unlink()
    with pytest.raises(ConfigError, match="cannot read"):
        collection_phases(col)


def test_page_reads_through_chain_rpc_url_unless_page_rpc_url_says_otherwise():
    assert page_rpc_url(None, "http://127.0.0.1:8545", "https://mainnet.base.org") == "http://127.0.0.1:8545"
    assert page_rpc_url(None, None, "https://mainnet.base.org") == "https://mainnet.base.org"
    assert page_rpc_url("https://rpc.example/", "http://127.0.0.1:8545", "x") == "https://rpc.example/"
    with pytest.raises(UserError, match="page.rpc_url") as caught:
        page_rpc_url(None, "https://base-mainnet.g.alchemy.com/v2/AbCdEf0123456789xyzXYZ", "x")
    assert "AbCdEf0123456789" not in str(caught.value)


def test_the_schema_states_the_start_default_the_contract_enforces():
    from mintprep.collection.chain_settings import PhaseSettings

    assert PhaseSettings(name="public").start_time == 0
    described = PhaseSettings.model_json_schema()["properties"]["start"]["description"]
    assert "default: 0, open from the deploy on" in described
