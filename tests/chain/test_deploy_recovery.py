"""A deploy whose process died before the receipt is adopted on the next run, never sent twice (real anvil)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mintprep.chain.deploy import create_address, deploy_drop, drop_config
from mintprep.base.errors import UserError
from mintprep.state.ledger import Ledger
from tests.chain.conftest import chain_collection, deploy_for


def test_a_deploy_interrupted_after_sending_is_adopted_not_repeated(chain, tmp_path: Path):
    col = chain_collection(tmp_path / "col", chain.node.url)
    w3, owner = chain.w3, chain.owner
    nonce = w3.eth.get_transaction_count(owner.address)
    with Ledger.open(col.state_dir) as ledger:  # what deploy_contract writes before sending ...
        ledger.record_chain_tx("deploy-sent", w3.eth.chain_id, create_address(owner.address, nonce), "",
                               {"deployer": owner.address, "nonce": nonce, "network": "base"})
    sent = deploy_drop(w3, owner, drop_config(col, owner.address, ""))  # ... and the process dies here
    assert sent.address == create_address(owner.address, nonce)

    adopted = deploy_for(col, owner)
    assert adopted.address == sent.address
    assert w3.eth.get_transaction_count(owner.address) == nonce + 1, "no second contract was deployed"
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.latest_deployment(w3.eth.chain_id).address == sent.address


def test_a_deploy_still_pending_is_refused_and_a_lost_one_is_redone(chain, tmp_path: Path):
    col = chain_collection(tmp_path / "col", chain.node.url)
    w3, owner = chain.w3, chain.owner
    nonce = w3.eth.get_transaction_count(owner.address)
    with Ledger.open(col.state_dir) as ledger:
        ledger.record_chain_tx("deploy-sent", w3.eth.chain_id, create_address(owner.address, nonce), "",
                               {"deployer": owner.address, "nonce": nonce, "network": "base"})
    with pytest.raises(UserError, match=f"nonce {nonce}.*has not been mined yet"):
        deploy_for(col, owner)
    w3.eth.send_transaction({"from": owner.address, "to": owner.address, "value": 0})  # the nonce went elsewhere
    deployed = deploy_for(col, owner)
    assert w3.eth.get_code(deployed.address)
