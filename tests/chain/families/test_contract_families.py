"""Contract families end to end on a real anvil (tests.support.anvil) with a local trustless gateway standing in
for the creator's IPFS node: detection, import from the address, audit of what collectors see, repair through
each family's own setter, and --print-tx for an owner that is not the configured key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain.families import detect_family
from mintprep.cli.app import app
from mintprep.ipfs.gateway import serve_gateway
from tests.chain.families.shapes import SHAPES, Shape, deploy_shape
from tests.conftest import write_collection
from tests.support.anvil import Chain


@pytest.fixture(params=sorted(SHAPES))
def case(request, tmp_path: Path, chain: Chain):
    shape: Shape = SHAPES[request.param]
    foreign, contract = deploy_shape(shape, chain, tmp_path / "their-ipfs-node")
    path = write_collection(tmp_path / "col", size=shape.size, generator__steps=3, generator__upscale=1,
                            chain__rpc_url=chain.node.url)
    server = serve_gateway(foreign.store)
    try:
        yield shape, path, foreign, contract, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_import_detects_the_family_and_maps_every_minted_id(case, chain: Chain):
    shape, path, foreign, contract, gateway = case
    assert detect_family(chain.w3, contract.address).name == shape.family

    code, imported = cli("import", str(path), "--from", contract.address, "--gateway", gateway)

    assert code == 0, imported
    assert imported["family"] == shape.family and imported["minted"] == shape.minted_ids
    assert {t["token_id"]: t["image_cid"] for t in imported["imported"]} == foreign.image_cids
