"""A hidden drop (`chain.reveal`) publishes nothing of its art before the reveal, end to end on real parts: the tiny
pipeline, a real anvil node, and as the public pinning service a local server following the kubo RPC API
(tests/ipfs/fakes.py; no kubo daemon can run here). Every CID reachable from the chain (contractURI, tokenURI,
placeholderURI) and from the built page's files is walked on what the public service holds, and none of them is,
contains or links to a real image, a real metadata file, the real metadata directory or the manifest; and none of
those CIDs reached the public service at all (no block of them was uploaded to it, so it cannot announce them).
A reveal whose release of the withheld pins is cut short (the service refuses one image) sends nothing and
finishes when rerun. After `reveal` the images and the real directory are on the public service, the contract
serves it, and audit finds it whole."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image
from web3.contract import Contract

from mintprep.chain.artifact import load_artifact
from mintprep.chain.check import check_collection
from mintprep.base.errors import UserError
from mintprep.chain.base_uri import collection_base_uri_update
from mintprep.chain.reveal import RevealStep, read_state
from mintprep.collection.config import Collection, load_collection
from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.commands.audit import audit_collection
from mintprep.commands.repair import repair_collection
from mintprep.commands.provenance import collection_provenance
from mintprep.commands.reveal import release_metadata, reveal_collection
from mintprep.commands import run_collection
from mintprep.commands.status import collection_status
from mintprep.ipfs.backends.local import LocalBackend
from mintprep.ipfs.cid import CID
from mintprep.ipfs.dagpb import DIRECTORY, decode_pbnode, decode_unixfs
from mintprep.ipfs.reader import read_file
from mintprep.ipfs.store import BlockStore
from mintprep.stages.pin import PinsFailed
from mintprep.state.ledger import Ledger, ManifestRecord
from mintprep.state.workspace import Workspace
from tests.chain.conftest import deploy_for
from tests.conftest import write_collection
from tests.ipfs.fakes import FakeKubo, running
from tests.support.anvil import Chain

CID_TEXT = re.compile(rb"\b(?:bafy|bafk)[a-z2-7]{50,}|\bQm[1-9A-HJ-NP-Za-km-z]{44}")
PRICE = 630_000_000_000_000


def reachable(start: set[str], store: BlockStore) -> dict[str, bytes]:
    """Every CID reachable from `start` in `store`: DAG links, and CIDs named inside any file's bytes."""
    fetch = store.get
    seen: dict[str, bytes] = {}
    todo = list(start)
    while todo:
        cid = todo.pop()
        if cid in seen:
            continue
        parsed = CID.parse(cid)
        if not store.has(parsed):
            seen[cid] = b""  # not on the public service: nobody can read it there
            continue
        block = fetch(parsed)
        node = decode_pbnode(block) if parsed.codec != 0x55 else None
        if node is not None and decode_unixfs(node.data).type == DIRECTORY:
            seen[cid] = block
            todo += [str(link.cid) for link in node.links]
            continue
        data = read_file(cid, fetch)
        seen[cid] = data
        todo += [m.decode() for m in CID_TEXT.findall(data)]
    return seen


def cids_in(text: bytes) -> set[str]:
    return {m.decode() for m in CID_TEXT.findall(text)}


def hidden_drop(folder: Path, chain: Chain, api: str) -> tuple[Collection, Contract]:
    """A 4-piece `chain.reveal` collection pinning on the kubo node at `api`: run, deployed by mintprep, run again
    (the page, now with the contract; the chain gate runs `check`), and 2 tokens minted. (collection, contract)"""
    soon = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 180, 40)).save(soon, format="PNG")
    settings = {"network": "base", "rpc_url": chain.node.url, "mint_price": "0.00063", "max_per_wallet": 5,
                "reveal": {"placeholder_image": "soon.png"}}
    ipfs = {"backend": "kubo", "api_url": api, "profile": "kubo-cidv1"}
    path = write_collection(folder, size=4, generator__steps=2, chain=settings, ipfs=ipfs)
    (path.parent / "soon.png").write_bytes(soon.getvalue())
    assert run_collection(load_collection(path)).exit_code == 0
    deployed = deploy_for(load_collection(path), chain.owner)
    col = load_collection(write_collection(folder, size=4, generator__steps=2, ipfs=ipfs,
                                           chain={**settings, "contract": deployed.address}))
    report = run_collection(col)
    assert report.exit_code == 0 and report.page, report.to_json()
    drop = chain.w3.eth.contract(address=deployed.address, abi=load_artifact().abi)
    drop.functions.mint(0, 2, []).transact({"from": chain.accounts[1].address, "value": 2 * PRICE})
    return col, drop


def real_cids(col: Collection) -> tuple[ManifestRecord, set[str]]:
    """The ledger's current manifest, and every CID of the real art and metadata it names."""
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        record = ledger.current_manifest()
    real = {record.metadata_root, record.manifest_cid}
    real |= {t.image_cid for t in record.manifest.tokens} | {t.metadata_cid for t in record.manifest.tokens}
    return record, real


def on_public_node(cids: set[str], node: FakeKubo) -> set[str]:
    """Those of `cids` the public node pins or was sent any block of."""
    return {cid for cid in cids if cid in node.pins or node.store.has(cid)}


@pytest.mark.slow
def test_nothing_real_is_reachable_before_the_reveal_and_all_of_it_after(chain: Chain, tmp_path: Path):
    node = FakeKubo(BlockStore(tmp_path / "public-node"))
    with running(node) as api:
        col, drop = hidden_drop(tmp_path / "col", chain, api)
        record, real = real_cids(col)
        assert len(real) == 2 + 2 * 4

        on_chain = {drop.functions.contractURI().call(), drop.functions.tokenURI(1).call(),
                    drop.functions.placeholderURI().call(), drop.functions.baseURI().call()}
        page_files = [p for p in col.page_dir.rglob("*") if p.is_file()]
        page_text = b"".join(p.read_bytes() for p in page_files)
        start = {u.removeprefix("ipfs://").split("/")[0] for u in on_chain if u} | cids_in(page_text)
        walked = reachable(start, node.store)
        assert drop.functions.baseURI().call() == ""
        assert any(b'"image"' in data for data in walked.values()), "the walk read the placeholder documents"
        assert not real & set(walked), f"reachable before the reveal: {real & set(walked)}"
        for cid, data in walked.items():
            assert not real & cids_in(data), f"{cid} names {real & cids_in(data)}"
        assert not real & cids_in(page_text)
        assert not on_public_node(real, node), f"on the public node before the reveal: {on_public_node(real, node)}"
        assert collection_status(col)["withheld"] is True
        collection_doc = json.loads(walked[drop.functions.contractURI().call().removeprefix("ipfs://")])
        assert collection_doc["name"] == col.spec.name and collection_doc["image"] != f"ipfs://{record.manifest.tokens[0].image_cid}"

        # check and audit know a hidden drop: the empty base URI and the placeholder contractURI are right.
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            before = check_collection(col, ledger)
        assert before.ok, before.to_json()
        audit = audit_collection(col)
        assert audit.exit_code == 0, audit.to_json()
        assert audit.checked["sources"] == ["local"], "withheld art and metadata are judged in the local store"

        # The release stops part way (the public node refuses token 3's image): nothing is sent, nothing recorded
        # as released, and the rerun pins only what is left, then reveals.
        refused = record.manifest.by_token()[3].image_cid
        node.script.refuse = {refused}
        with Workspace.open(col) as ws, pytest.raises(PinsFailed, match=f"{col.spec.symbol}-3.png"):
            reveal_collection(ws, chain.owner)
        assert read_state(drop).step == RevealStep.START, "no reveal transaction before the art is public"
        assert collection_status(col)["withheld"] is True
        images = {t.image_cid for t in record.manifest.tokens}
        assert images - {refused} <= set(node.pins) and refused not in node.pins
        node.script.refuse = set()

        with Workspace.open(col) as ws:
            revealed = reveal_collection(ws, chain.owner)
        assert revealed.base_uri == f"ipfs://{record.metadata_root}/"
        assert images | {record.metadata_root, record.manifest_cid} <= set(node.pins), "art and directory public"
        assert collection_status(col)["withheld"] is False
        # The reveal rebuilt the page with its gallery: nothing is stale before any other command runs.
        assert revealed.page and Path(revealed.page).parent == col.page_dir
        shown = b"".join(p.read_bytes() for p in col.page_dir.rglob("*") if p.is_file())
        assert record.metadata_root in cids_in(shown) and images <= cids_in(shown), "the gallery, now public"
        just_revealed = audit_collection(col)
        assert just_revealed.exit_code == 0, just_revealed.to_json()
        # A later run pins nothing: the reveal released it all.
        rebuilt = run_collection(col)
        assert rebuilt.exit_code == 0 and rebuilt.pinned == 0, rebuilt.to_json()
        revealed_audit = audit_collection(col)
        assert revealed_audit.exit_code == 0, revealed_audit.to_json()
        assert revealed_audit.checked["sources"] == ["kubo"], "after the reveal the public node is what is judged"
        with Workspace.open(col) as ws:  # a later repair may move the base URI: the gate no longer refuses
            assert collection_base_uri_update(ws).base_uri == revealed.base_uri
        served = drop.functions.tokenURI(1).call().removeprefix("ipfs://")
        document = json.loads(read_file(node_path(served, node), node.store.get))
        assert document["image"].removeprefix("ipfs://") in {t.image_cid for t in record.manifest.tokens}
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            after = check_collection(col, ledger)
        assert after.ok and after.row("contract_uri").on_chain == f"ipfs://{record.metadata_root}/collection.json"
        # Anyone can now check the provenance the contract held since the deploy, from the public node alone.
        checked = collection_provenance(col, None)
        assert checked.metadata_root == record.metadata_root and checked.images == 4
        assert checked.ok is True and checked.provenance_hash == checked.on_chain == record.provenance_hash


def node_path(path: str, node: FakeKubo) -> str:
    """The CID of ROOT/NAME on the public node."""
    from mintprep.ipfs.uri import resolve

    return str(resolve(f"ipfs://{path}", node.store.get))


@pytest.mark.slow
def test_a_repair_before_the_reveal_keeps_the_art_withheld(chain: Chain, tmp_path: Path, monkeypatch):
    """An image pin lost from the local store before the reveal: audit names it (asking no public node), the repair
    pins it there again and sends no base URI (the reveal sets it), and nothing real reaches the public node. New
    art is refused until the chain says revealed, also once the reveal has released the art but not yet sent its
    transaction; a repair in that window re-pins on the public node and leaves the base URI to the reveal."""
    node = FakeKubo(BlockStore(tmp_path / "public-node"))
    with running(node) as api:
        col, drop = hidden_drop(tmp_path / "col", chain, api)
        record, real = real_cids(col)
        lost = record.manifest.by_token()[3].image_cid
        store = LocalBackend(col.state_dir)
        store.unpin(lost)
        store.store.collect_garbage()

        audit = audit_collection(col)
        assert [(p.token_id, p.kind, p.evidence["source"]) for p in audit.problems] == [
            (3, "image-unretrievable", "local")], audit.to_json()
        monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
        outcome = repair_collection(col)
        assert outcome.status == "repaired" and outcome.after.ok, outcome.to_json()
        assert [t.action for t in outcome.plan.tokens] == ["repin"] and outcome.plan.base_uri_tx is None
        assert store.is_pinned(lost) and drop.functions.baseURI().call() == ""
        assert not on_public_node(real, node), f"on the public node before the reveal: {on_public_node(real, node)}"

        # Token 4's art (not minted) lost everywhere, pin and local copy: new art would break the provenance the
        # reveal proves against, so the repair refuses before changing anything.
        gone = record.manifest.by_token()[4]
        store.unpin(gone.image_cid)
        store.store.collect_garbage()
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            local_copy = ledger.objects.path(gone.png_sha256)
        kept = local_copy.read_bytes()
        local_copy.unlink()
        with pytest.raises(UserError, match=r"token\(s\) 4 need new art.*provenance hash"):
            repair_collection(col)
        _, unchanged = real_cids(col)
        assert unchanged == real and drop.functions.baseURI().call() == ""

        # A reveal stopped between releasing the art and its transaction: the art is public, the chain still says
        # hidden. The chain decides: a repair re-pins a lost image and leaves the base URI to the reveal, and still
        # refuses new art (the provenance hash commits to it until the reveal), whatever the ledger says.
        local_copy.write_bytes(kept)
        with Workspace.open(col) as ws:
            release_metadata(ws)
        assert read_state(drop).step == RevealStep.START and collection_status(col)["withheld"] is False
        lost_public = record.manifest.by_token()[3].image_cid
        node.pins.pop(lost_public)
        outcome = repair_collection(col)
        assert outcome.status == "repaired" and outcome.after.ok, outcome.to_json()
        assert [t.action for t in outcome.plan.tokens] == ["repin"] and outcome.plan.base_uri_tx is None
        assert lost_public in node.pins and drop.functions.baseURI().call() == ""
        node.pins.pop(gone.image_cid)
        local_copy.unlink()
        with pytest.raises(UserError, match=r"token\(s\) 4 need new art.*provenance hash"):
            repair_collection(col)
        _, unchanged = real_cids(col)
        assert unchanged == real and drop.functions.baseURI().call() == ""
