"""`mintprep run` with `ipfs.backend: kubo` against a local server that follows the kubo RPC API (tests/ipfs/fakes.py).

No kubo daemon can run here; the fake stores uploaded blocks in a real block store and serves them
back through block/get, so every pin the pipeline records was fetched back and checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.verify import verify_dag
from mintprep.state.ledger import Ledger
from mintprep.commands import run_collection
from tests.conftest import write_collection
from tests.ipfs.fakes import FakeKubo, running

pytestmark = pytest.mark.slow  # the whole example collection (77 pieces), twice: about a minute on two cores


def test_run_pins_the_whole_example_collection_on_kubo(tmp_path: Path):
    node = FakeKubo(BlockStore(tmp_path / "kubo-node"))
    with running(node) as url:
        # The example collection (77 pieces), sampled with 3 steps to keep the test short.
        path = write_collection(tmp_path / "c", generator__steps=3,
                                ipfs={"backend": "kubo", "api_url": url, "profile": "kubo-cidv1"})
        report = run_collection(load_collection(path))
        assert report.exit_code == 0 and report.pinned == 77
        again = run_collection(load_collection(path))
        assert again.pinned == 0 and again.pin_skipped == 77

    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest()
        cids = [t.image_cid for t in manifest.manifest.tokens] + [manifest.metadata_root, manifest.manifest_cid]
    assert len(cids) == 79
    for cid in cids:
        assert cid in node.pins, f"{cid} was not pinned on the kubo node"
        assert verify_dag(cid, node.store.get).ok, f"{cid} is incomplete on the kubo node"
    assert not any("dag/import" in r and "GET" in r for r in node.script.requests)


def test_moving_to_another_kubo_node_pins_everything_there(tmp_path: Path):
    """The ledger keys pins by endpoint: "already pinned on node A" must not read as pinned on node B."""
    first, second = FakeKubo(BlockStore(tmp_path / "a")), FakeKubo(BlockStore(tmp_path / "b"))
    with running(first) as url_a, running(second) as url_b:
        path = write_collection(tmp_path / "c", size=3, generator__steps=2, ipfs={"backend": "kubo", "api_url": url_a})
        assert run_collection(load_collection(path)).pinned == 3
        path.write_text(path.read_text().replace(url_a, url_b))
        moved = run_collection(load_collection(path))
    assert moved.pinned == 3 and moved.pin_skipped == 0
    assert verify_dag(moved.metadata_root, second.store.get).ok and moved.metadata_root in second.pins
