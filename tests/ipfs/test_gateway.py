"""The read-only gateway over the local store, read by the trustless client (both real, over HTTP)."""

from __future__ import annotations

import io
import os
from dataclasses import replace

import pytest
import requests

from mintprep.ipfs.car import CarReader
from mintprep.ipfs.gateway import TrustlessGateway, serve_gateway
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.dagpb import HAMT_SHARD, decode_pbnode, decode_unixfs
from mintprep.ipfs.unixfs import DagImport, get_profile, import_bytes, import_directory

PROFILE = get_profile("kubo-cidv1").with_options(chunker="size-1000")
SHARDS_EARLY = replace(PROFILE, hamt_threshold=2000)  # a HAMT from ~60 entries: same code path, less I/O


@pytest.fixture
def served(tmp_path):
    store = BlockStore(tmp_path)
    server = serve_gateway(store)
    yield store, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_raw_car_and_file_paths_through_a_hamt(served) -> None:
    store, url = served
    image = os.urandom(3500)
    metadata = {f"{i}.json": import_bytes(b'{"name": "%d"}' % i, SHARDS_EARLY) for i in range(1, 200)}
    collection = import_directory({"images": {"1.png": import_bytes(image, SHARDS_EARLY)}, "meta": metadata}, SHARDS_EARLY)
    assert decode_unixfs(decode_pbnode(collection.node.children[1].data).data).type == HAMT_SHARD
    store.put_many(collection.blocks)
    root = collection.root

    assert requests.get(f"{url}/ipfs/{root}/images/1.png").content == image
    json_response = requests.get(f"{url}/ipfs/{root}/meta/199.json")  # resolved through HAMT shards
    assert json_response.content == b'{"name": "199"}' and json_response.headers["Content-Type"] == "application/json"
    raw = requests.get(f"{url}/ipfs/{root}?format=raw")
    assert raw.headers["Content-Type"] == "application/vnd.ipld.raw" and root.matches(raw.content)
    car = requests.get(f"{url}/ipfs/{root}/images", headers={"Accept": "application/vnd.ipld.car"})
    images = DagImport(collection.node.children[0], PROFILE)
    answer = CarReader(io.BytesIO(car.content))  # IPIP-402: rooted at the requested root, the path's blocks first
    assert answer.roots == [root] and [b.cid for b in answer] == [root] + [b.cid for b in images.blocks]
    assert requests.get(f"{url}/ipfs/{root}/meta/nope.json").status_code == 404
    assert requests.get(f"{url}/ipfs/not-a-cid").status_code == 400
    assert requests.post(f"{url}/ipfs/{root}").status_code == 405
    assert "1.png" in requests.get(f"{url}/ipfs/{root}/images").text  # a listing, names escaped


def test_trustless_client_verifies_and_falls_back_to_raw_blocks(served) -> None:
    store, url = served
    dag = import_bytes(os.urandom(5000), PROFILE)
    gateway = TrustlessGateway(url)
    assert gateway.verify(dag.root).missing == (dag.root,)  # 404 on the root
    store.put_many(dag.blocks)
    report = gateway.verify(dag.root)
    assert report.ok and report.blocks == len(list(dag.blocks))
    leaf = list(dag.blocks)[3].cid
    store.path_for(leaf).write_bytes(b"tampered")
    assert gateway.verify(dag.root).corrupt == (leaf,)
