"""Item 7 of issue 31: `serve`'s gateway answers `/ipfs/<root>/<path>?format=car` as the trustless gateway
specification (IPIP-402) says: a CAR rooted at the requested root, holding the blocks along the path, then the
terminal entity as `dag-scope` asks (block, entity, all). Checked by an independent client: npm @ipld/car,
@ipld/dag-pb and multiformats (contracts/package.json) in tests/hostile/car_path_check.mjs, which hashes every
block and walks the path itself, and by mintprep's own CAR reader."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from mintprep.ipfs.car import CarReader
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from tests.support.tools import REPO

HERE = Path(__file__).parent
# contracts/node_modules after `npm ci --prefix contracts`; MINTPREP_CAR_CLIENT_MODULES names another install
MODULES = Path(os.environ.get("MINTPREP_CAR_CLIENT_MODULES", REPO / "contracts" / "node_modules"))


def independent_check(tmp_path: Path, car: bytes, names: list[str]) -> dict:
    if not (MODULES / "@ipld" / "car").is_dir() or shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail(f"npm @ipld/car is not installed in {MODULES} (npm ci --prefix contracts)")
        pytest.skip(f"npm @ipld/car is not installed in {MODULES}")
    (tmp_path / "client").mkdir(parents=True)
    script = tmp_path / "client" / "check.mjs"  # beside a node_modules link: node resolves the packages from it
    shutil.copy(HERE / "car_path_check.mjs", script)
    (tmp_path / "client" / "node_modules").symlink_to(MODULES)
    (tmp_path / "answer.car").write_bytes(car)
    done = subprocess.run(["node", str(script), str(tmp_path / "answer.car"), *names], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def served(tmp_path: Path):
    """A collection-like DAG in a store: a root with json/ (a HAMT of 3,000 files, sharded as kubo shards it) and
    images/1.png of 600 KB (three blocks), served by mintprep's gateway on 127.0.0.1."""
    profile = get_profile("kubo-cidv1")
    documents = {f"{t}.json": import_bytes(f'{{"name": "#{t}"}}'.encode(), profile) for t in range(1, 3001)}
    image = import_bytes(os.urandom(600_000), profile)
    root = import_directory({"json": documents, "images": {"1.png": image}}, profile)
    store = BlockStore(tmp_path / "store")
    store.put_many(root.blocks)
    server = serve_gateway(store)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, image
    finally:
        server.shutdown()


def car_for(url: str, path: str, scope: str | None = None) -> bytes:
    params = {"format": "car", **({"dag-scope": scope} if scope else {})}
    response = requests.get(f"{url}/ipfs/{path}", params=params, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/vnd.ipld.car")
    return response.content


def test_a_path_car_is_rooted_at_the_requested_root_and_proves_the_path(served, tmp_path: Path):
    url, root, _ = served
    car = car_for(url, f"{root.root}/json/1.json")
    checked = independent_check(tmp_path, car, ["json"])  # @ipld/dag-pb cannot follow a HAMT: checked to json/
    assert checked["roots"] == [str(root.root)] and checked["terminal_in_car"]
    ours = CarReader(io.BytesIO(car))
    assert ours.roots == [root.root]
    # mintprep's reader resolves 1.json through the HAMT from nothing but the CAR's blocks
    from mintprep.ipfs.uri import resolve

    blocks = {block.cid: block.data for block in ours}
    assert resolve(f"ipfs://{root.root}/json/1.json", blocks.get) is not None


def test_dag_scope_block_entity_and_all(served, tmp_path: Path):
    url, root, image = served
    path = f"{root.root}/images/1.png"
    counts = {}
    for scope in ("block", "entity", "all"):
        checked = independent_check(tmp_path / scope, car_for(url, path, scope), ["images", "1.png"])
        assert checked["roots"] == [str(root.root)] and checked["terminal"] == str(image.root)
        assert checked["terminal_in_car"]
        counts[scope] = len(checked["blocks"])
    image_blocks = len(list(image.blocks))
    assert image_blocks == 4  # a 600 KB file: its root and three 256 KiB leaves
    assert counts == {"block": 3, "entity": 2 + image_blocks, "all": 2 + image_blocks}
    directory = independent_check(tmp_path / "dir", car_for(url, f"{root.root}/json", "entity"), ["json"])
    assert 1 < len(directory["blocks"]) < 100  # the root and the HAMT's shards, not its 3,000 files
    assert requests.get(f"{url}/ipfs/{path}", params={"format": "car", "dag-scope": "most"}, timeout=30) \
        .status_code == 400
