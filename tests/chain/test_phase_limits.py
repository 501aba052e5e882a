"""Phase counts that fit the deploy transaction, and phases that ended before the deploy, on a real anvil node."""

from __future__ import annotations

import pytest

from mintprep.base.errors import ConfigError, UserError
from mintprep.commands.contract import deploy_contract
from mintprep.collection.chain_settings import MAX_PHASES
from mintprep.collection.config import load_collection
from mintprep.state.workspace import Workspace
from tests.chain.conftest import chain_collection
from tests.conftest import write_collection
from tests.support.anvil import Chain, DropParams, deploy_test_drop


def phase_tuples(count: int) -> tuple[tuple, ...]:
    return tuple((0, 2**64 - 1, 10**15, 5, 0, bytes([i % 256]) * 32) for i in range(count))


def test_the_initcode_limit_is_real_and_the_cap_fits_under_it(chain: Chain):
    """300 phases exceed EIP-3860's 49,152-byte initcode (the issue's failure); MAX_PHASES with long strings fit."""
    with pytest.raises(Exception, match="(?i)max initcode size exceeded"):
        deploy_test_drop(chain.w3, chain.owner, DropParams(phases=phase_tuples(300)))
    long = "x" * 200
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(
        name="n" * 64, symbol="S" * 16, base_uri=long, contract_uri=long, placeholder_uri=long,
        phases=phase_tuples(MAX_PHASES), payees=tuple((a.address, 1) for a in chain.accounts[:8])))
    assert drop.contract.functions.phaseCount().call() == MAX_PHASES


def test_more_phases_than_fit_are_refused_when_the_file_is_loaded(tmp_path):
    phases = [{"name": f"p{i}", "start": 4_000_000_000 + i, "end": 4_000_000_001 + i} for i in range(MAX_PHASES + 1)]
    with pytest.raises(ConfigError, match=f"chain.phases.*{MAX_PHASES + 1} phases; at most {MAX_PHASES}"):
        load_collection(write_collection(tmp_path, chain={"phases": phases}))


def test_a_phase_that_already_ended_is_refused_at_deploy_unless_allowed(chain: Chain, tmp_path):
    phases = [{"name": "1970", "start": 0, "end": 1}, {"name": "public", "start": 0}]
    col = chain_collection(tmp_path / "col", chain.node.url, phases=phases, mint_price=None, max_per_wallet=None)
    with Workspace.open(col) as ws:
        with pytest.raises(UserError, match=r"chain.phases.0 \('1970'\) ended at 1970-01-01T00:00:01Z") as refused:
            deploy_contract(ws, chain.owner)
        assert refused.value.field == "chain.phases.0.end"
        assert ws.ledger.latest_deployment(chain.w3.eth.chain_id) is None
        deployed = deploy_contract(ws, chain.owner, allow_ended_phases=True)
    assert deployed.address
