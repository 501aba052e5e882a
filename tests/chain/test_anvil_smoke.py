def test_node_reports_base_chain_id_and_deploys_drop(drop, chain):
    assert chain.w3.eth.chain_id == 8453
    assert drop.contract.functions.maxSupply().call() == 77
    assert drop.contract.functions.owner().call() == chain.owner.address
