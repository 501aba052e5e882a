"""`mintprep import` of a collection made elsewhere, end to end on anvil (chain id 8453, the committed
MintprepDrop) and a local trustless gateway standing in for the user's IPFS node: import from the contract
address, audit names exactly the broken tokens, repair replaces the unminted broken ones, leaves the minted
broken one reported, pins a lost block of a minted one again, and the base URI then resolves every token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.base.errors import UserError
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.cid import CID
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.reader import read_file
from mintprep.ipfs.uri import resolve
from mintprep.state.ledger import Ledger
from mintprep.net.marketplace import OPENSEA_API_ENV, OPENSEA_KEY_ENV, request_refreshes
from mintprep.commands.repair import repair_collection
from tests.support.foreign import Foreign, make_foreign_collection
from tests.support.opensea import refresh_handler
from tests.support.state import state_fingerprint
from tests.conftest import write_collection
from tests.support.anvil import Chain, DropParams, deploy_test_drop
from tests.support.servers import http_server

SIZE = 20
BROKEN = {3: "black", 8: "grey", 13: "noise", 17: "black"}
MINTED = 5  # tokens 1..5: token 3 is minted and broken
PRICE_WEI = 630_000_000_000_000


@pytest.fixture
def seed_case(tmp_path: Path, chain: Chain):
    foreign = make_foreign_collection(tmp_path / "their-ipfs-node", SIZE, BROKEN)
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=SIZE,
                                                              base_uri=f"ipfs://{foreign.metadata_root}/")).contract
    drop.functions.mint(0, MINTED, []).transact({"from": chain.accounts[1].address, "value": MINTED * PRICE_WEI})
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1,
                            chain__rpc_url=chain.node.url)
    server = serve_gateway(foreign.store)
    try:
        yield path, foreign, drop, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def resolves_every_token(path: Path, drop) -> dict[int, dict]:
    """tokenURI(id) of every minted id, and the base URI + `<id>.json` of every id still to mint, fetched and
    verified from the collection's store: id -> metadata."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    base, minted = drop.functions.baseURI().call(), drop.functions.totalMinted().call()
    documents = {}
    for token_id in range(1, SIZE + 1):
        uri = drop.functions.tokenURI(token_id).call() if token_id <= minted else f"{base}{token_id}.json"
        document = json.loads(read_file(resolve(uri, fetch), fetch))
        read_file(resolve(document["image"], fetch), fetch)  # the image is there, every block intact
        documents[token_id] = document
    return documents


def test_import_from_the_contract_then_audit_and_repair(seed_case, chain: Chain, monkeypatch: pytest.MonkeyPatch):
    path, foreign, drop, gateway = seed_case

    dry_code, dry = cli("import", str(path), "--from", drop.address, "--gateway", gateway, "--dry-run")
    assert dry_code == 0 and len(dry["imported"]) == SIZE and dry["minted"] == list(range(1, MINTED + 1))
    assert not (path.parent / ".mintprep").exists(), "a dry run writes nothing"
    code, imported = cli("import", str(path), "--from", drop.address, "--gateway", gateway)
    assert code == 0, imported
    assert {t["token_id"]: t["image_cid"] for t in imported["imported"]} == foreign.image_cids
    assert imported["imported"][0]["provenance"]["dna"] == foreign.documents[1]["dna"]

    code, audit = cli("audit", str(path))
    assert code == 1 and "problems" in audit, audit
    assert {(p["token_id"], p["kind"]) for p in audit["problems"]} == {(t, "image-broken") for t in BROKEN}, [p for p in audit["problems"] if p["token_id"] is None]
    assert [p["token_id"] for p in audit["problems"] if p["minted"]] == [3]

    col = load_collection(path)
    lost = foreign.image_cids[2]  # minted and healthy: its only block disappears from the collection's store
    make_backend(col.spec.ipfs, col.state_dir).store.path_for(CID.parse(lost)).unlink()
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    seen: list = []
    with http_server(refresh_handler("os-key-123", seen, refuse=frozenset({4}))) as opensea:
        monkeypatch.setenv(OPENSEA_KEY_ENV, "os-key-123")
        monkeypatch.setenv(OPENSEA_API_ENV, opensea)
        outcome = repair_collection(col)

    assert seen == [("base", drop.address, t) for t in range(1, MINTED + 1)], "each minted token, once"
    assert [(r["token_id"], r["accepted"]) for r in outcome.refreshes] == [(1, True), (2, True), (3, True),
                                                                           (4, False), (5, True)]

    assert sorted((t.token_id, t.action) for t in outcome.plan.tokens) == [(2, "repin"), (8, "regenerate"),
                                                                          (13, "regenerate"), (17, "regenerate")]
    assert outcome.plan.minted_skipped == [3]
    assert [(p.token_id, p.kind) for p in outcome.after.problems] == [(3, "image-broken")]
    assert drop.functions.baseURI().call() == f"ipfs://{outcome.plan.new_metadata_root}/"
    documents = resolves_every_token(path, drop)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        images = {t.token_id: t.image_cid for t in ledger.current_manifest().manifest.tokens}
    healthy = [t for t in range(1, SIZE + 1) if t not in BROKEN]
    assert {t: images[t] for t in healthy} == {t: foreign.image_cids[t] for t in healthy}
    assert images[3] == foreign.image_cids[3], "the minted broken token is left alone"
    assert all(images[t] != foreign.image_cids[t] for t in (8, 13, 17))
    for token_id in (1, 8):  # untouched and regenerated alike keep every field mintprep does not own
        assert {k: documents[token_id][k] for k in ("dna", "edition", "date", "compiler", "attributes")} == \
            {k: foreign.documents[token_id][k] for k in ("dna", "edition", "date", "compiler", "attributes")}
    assert documents[1] == foreign.documents[1], "an untouched token's metadata is the published file"

    code, again = cli("audit", str(path))
    assert code == 1 and [(p["token_id"], p["kind"]) for p in again["problems"]] == [(3, "image-broken")]


def test_repair_refuses_a_base_uri_the_ledger_never_recorded(seed_case, chain: Chain,
                                                              monkeypatch: pytest.MonkeyPatch):
    path, foreign, drop, gateway = seed_case
    assert cli("import", str(path), "--from", drop.address, "--gateway", gateway)[0] == 0
    elsewhere = f"ipfs://{foreign.images_root}/"  # someone else repoints the contract behind mintprep's back
    drop.functions.setBaseURI(elsewhere, "").transact({"from": chain.owner.address})
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    before, block = state_fingerprint(path), chain.w3.eth.block_number

    with pytest.raises(UserError, match="not one this collection's ledger recorded"):
        repair_collection(load_collection(path))
    code, _ = cli("audit", str(path), "--repair")

    assert code == 2
    assert state_fingerprint(path) == before and chain.w3.eth.block_number == block
    assert drop.functions.baseURI().call() == elsewhere


def test_import_of_a_folder_and_of_an_ipfs_root(tmp_path: Path):
    foreign: Foreign = make_foreign_collection(tmp_path / "node", 4, {2: "grey"})
    folder = tmp_path / "export"
    (folder / "images").mkdir(parents=True)
    for token_id, document in foreign.documents.items():
        (folder / f"{token_id}.json").write_text(json.dumps(dict(document, image=f"images/{token_id}.png")))
        (folder / "images" / f"{token_id}.png").write_bytes(read_file(foreign.image_cids[token_id],
                                                                      foreign.store.get))
    from_folder = write_collection(tmp_path / "a", size=4, generator__upscale=1)
    code, imported = cli("import", str(from_folder), "--from", str(folder))
    assert code == 0 and {t["token_id"]: t["image_cid"] for t in imported["imported"]} == foreign.image_cids
    code, audit = cli("audit", str(from_folder))
    assert code == 1 and [(p["token_id"], p["kind"]) for p in audit["problems"]] == [(2, "image-broken")]

    server = serve_gateway(foreign.store)
    try:
        from_root = write_collection(tmp_path / "b", size=4, generator__upscale=1)
        gateway = f"http://127.0.0.1:{server.server_address[1]}"
        code, imported = cli("import", str(from_root), "--from", f"ipfs://{foreign.metadata_root}",
                             "--gateway", gateway)
    finally:
        server.shutdown()
    assert code == 0 and imported["metadata_root"] == foreign.metadata_root
    code, status = cli("status", str(from_root))
    assert code == 0 and status["counts"] == {"pinned": 4, "pending": 0}

    assert cli("import", str(from_root), "--from", "nowhere-at-all")[0] == 2


def test_a_refused_key_is_reported_without_echoing_it():
    seen: list = []
    with http_server(refresh_handler("right-key", seen)) as opensea:
        [refresh] = request_refreshes(opensea, "wrong-key-456", "base", "0x" + "ab" * 20, [7])
    assert not refresh.accepted and refresh.detail == "HTTP 401" and seen == []
    assert "wrong-key-456" not in str(refresh.to_json())


def test_an_ipfs_root_imports_onto_a_kubo_backend(tmp_path: Path):
    """The fetched DAGs (each token's image, the image and metadata directories) are uploaded to kubo as CARs cut by
    size, verified by reading them back, and recorded. Kubo is the stand-in of tests/ipfs/fakes.py, which follows
    kubo's RPC API (dag/import, pin/add, block/get), on 127.0.0.1."""
    from mintprep.ipfs.store import BlockStore
    from tests.ipfs.fakes import FakeKubo, running

    foreign: Foreign = make_foreign_collection(tmp_path / "node", 4, {})
    kubo = FakeKubo(BlockStore(tmp_path / "kubo"))
    server = serve_gateway(foreign.store)
    try:
        with running(kubo) as url:
            path = write_collection(tmp_path / "col", size=4, generator__upscale=1, ipfs__backend="kubo",
                                    ipfs__api_url=url)
            gateway = f"http://127.0.0.1:{server.server_address[1]}"
            code, imported = cli("import", str(path), "--from", f"ipfs://{foreign.metadata_root}", "--gateway",
                                 gateway)
            assert code == 0, imported
            assert {t["token_id"]: t["image_cid"] for t in imported["imported"]} == foreign.image_cids
            assert {foreign.metadata_root, *foreign.image_cids.values()} <= set(kubo.pins)
            code, audit = cli("audit", str(path), "--gateway", gateway)
    finally:
        server.shutdown()
    assert code == 0 and audit["ok"], audit
