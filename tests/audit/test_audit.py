"""`mintprep audit` on a collection built by the real pipeline (tiny model, local IPFS store, real SQLite),
then broken behind its back: each kind of damage must be reported with the right kind, and nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

import mintprep.cli.audit_cmd  # noqa: F401  (registers `audit` until the lead adds it to mintprep.cli)
from mintprep.collection.token_document import metadata_errors
from mintprep.commands.audit import audit_collection
from mintprep.stages.audit import page_differences
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.cid import CID
from mintprep.ipfs.gateway import serve_gateway
from mintprep.state.ledger import Ledger
from tests.support.breakage import broken_pngs, plant_images, plant_metadata
from tests.support.state import state_fingerprint
from tests.conftest import write_collection


def kinds(report) -> set[tuple[int | None, str]]:
    return {(p.token_id, p.kind) for p in report.problems}


def test_a_freshly_built_collection_is_clean(collection: Path):
    report = audit_collection(load_collection(collection))
    assert report.ok, report.to_json()
    assert report.checked["tokens"] == 5 and report.checked["images"] == 5 and report.checked["metadata"] == 5


def test_black_flat_and_noise_images_are_reported_exactly_and_audit_changes_nothing(collection: Path):
    col = load_collection(collection)
    broken = broken_pngs(col)
    planted = plant_images(collection, {2: broken["black"], 3: broken["flat"], 4: broken["noise"]})
    before = state_fingerprint(collection)

    result = CliRunner().invoke(app, ["audit", str(collection), "--json"])

    assert state_fingerprint(collection) == before, "audit must not write the ledger, the store or the page"
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    found = {(p["token_id"], p["kind"]): p["evidence"] for p in report["problems"]}
    assert set(found) == {(2, "image-broken"), (3, "image-broken"), (4, "image-broken")}
    assert {t: found[(t, "image-broken")]["guard"] for t in (2, 3, 4)} == {2: "black", 3: "flat", 4: "noise"}
    for token_id, cid in planted.items():
        evidence = found[(token_id, "image-broken")]
        assert evidence["cid"] == cid and evidence["metrics"]["luma_std"] >= 0


def test_metadata_pointing_at_another_image_is_metadata_wrong_image(collection: Path):
    col = load_collection(collection)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        image_of_3 = ledger.pieces()[3].image_cid

    def point_2_at_3(files: dict[str, bytes]) -> None:
        document = json.loads(files["2.json"])
        document["image"] = f"ipfs://{image_of_3}"
        files["2.json"] = json.dumps(document).encode()

    plant_metadata(collection, point_2_at_3)
    report = audit_collection(col)
    assert kinds(report) == {(2, "metadata-wrong-image")}
    assert report.problems[0].evidence["points_at"] == f"ipfs://{image_of_3}"


def test_a_missing_block_and_a_corrupt_block_are_told_apart(collection: Path):
    col = load_collection(collection)
    backend = make_backend(col.spec.ipfs, col.state_dir)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        pieces = ledger.pieces()
    missing, corrupt = CID.parse(pieces[1].image_cid), CID.parse(pieces[5].image_cid)
    backend.store.path_for(missing).unlink()
    backend.store.path_for(corrupt).write_bytes(b"not the bytes this CID names")

    report = audit_collection(col)

    assert kinds(report) == {(1, "image-unretrievable"), (5, "image-corrupt")}
    by_token = {p.token_id: p.evidence for p in report.problems}
    assert by_token[1]["missing"] == [str(missing)]
    assert str(corrupt) in by_token[5]["corrupt"]


def test_a_page_built_for_an_old_root_is_page_stale(collection: Path, tmp_path: Path):
    col = load_collection(collection)
    old_site = tmp_path / "old-site"
    shutil.copytree(col.page_dir, old_site)
    plant_images(collection, {2: broken_pngs(col)["black"]})  # a new root; the page is rebuilt for it ...
    shutil.rmtree(col.page_dir)
    shutil.copytree(old_site, col.page_dir)  # ... and then the old page is put back

    report = audit_collection(col)

    stale = {p.evidence["field"]: p.evidence for p in report.problems if p.kind == "page-stale"}
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        current_root = ledger.current_manifest().metadata_root
    assert stale["metadata_root"]["current"] == current_root != stale["metadata_root"]["embedded"]
    assert stale["tokens"]["tokens"] == [2]
    assert kinds(report) == {(None, "page-stale"), (2, "image-broken")}


def test_a_gateway_serving_the_store_is_checked_too(collection: Path):
    col = load_collection(collection)
    backend = make_backend(col.spec.ipfs, col.state_dir)
    server = serve_gateway(backend.store)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert audit_collection(col, gateways=[url]).ok
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            lost = ledger.pieces()[4].image_cid
        backend.store.path_for(CID.parse(lost)).unlink()
        report = audit_collection(col, gateways=[url])
    finally:
        server.shutdown()
    assert {(p.token_id, p.kind, p.evidence["source"]) for p in report.problems} == {
        (4, "image-unretrievable", "local"), (4, "image-unretrievable", url)}


def test_metadata_rules():
    cid = "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"  # ipfs add --cid-version=1 of "hello world"
    good = {"name": "A #1", "description": "", "image": f"ipfs://{cid}", "attributes": [{"trait_type": "t", "value": 1}]}
    assert metadata_errors(json.dumps(good).encode())[0] == []
    for image in (f"ipfs://{cid}/1.png", f"https://ipfs.io/ipfs/{cid}"):  # a path under a directory; a gateway URL
        assert metadata_errors(json.dumps(dict(good, image=image)).encode())[0] == []
    assert metadata_errors(json.dumps(dict(good, image="ipfs://bafk")).encode())[0][0].startswith("image")
    # The URI the manifest expects is known well-formed; any other is still parsed.
    assert metadata_errors(json.dumps(dict(good, image="ipfs://bafk")).encode(), well_formed=f"ipfs://{cid}")[0]
    assert metadata_errors(json.dumps(good).encode(), well_formed=f"ipfs://{cid}")[0] == []
    assert metadata_errors(b"{not json")[0][0].startswith("not JSON")
    # A stranger's root may hold anything: an error of the document, never an exception out of the audit.
    assert metadata_errors(b"[" * 200_000 + b"]" * 200_000)[0] == ["JSON nested deeper than 32 levels"]
    assert metadata_errors(b'{"name": "x", "image": NaN}')[0][0].startswith("NaN is not JSON")
    bad = dict(good, image="https://example.com/1.png", attributes={"t": 1})
    assert [e.split(":")[0] for e in metadata_errors(json.dumps(bad).encode())[0]] == ["image", "attributes"]


def test_page_differences_name_each_field():
    manifest = {"metadata_root": "bafyNEW", "tokens": [{"token_id": 1, "image_cid": "bafkA"}]}
    page = {"metadata_root": "bafyOLD", "contract": "0xAbC", "tokens": [[1, "n", "bafkB", []], [2, "n", "bafkC", []]]}
    assert [d["field"] for d in page_differences(page, manifest, "0xabc")] == ["metadata_root", "tokens"]
    assert page_differences(page, manifest, "0xabc")[1]["tokens"] == [1, 2]
    assert page_differences(dict(page, metadata_root="bafyNEW"), manifest, None)[0]["field"] == "contract"


def test_html_report_shows_each_problem_piece_with_its_metrics(collection: Path, tmp_path: Path):
    col = load_collection(collection)
    broken = broken_pngs(col)
    planted = plant_images(collection, {2: broken["black"], 4: broken["noise"]})
    out = tmp_path / "report.html"

    result = CliRunner().invoke(app, ["audit", str(collection), "--html", str(out)])

    assert result.exit_code == 1
    page = out.read_text()
    assert page.count('src="data:image/png;base64,') == 2 and "<script" not in page
    assert all(cid in page for cid in planted.values()) and "luma_p99" in page and "hf_ratio" in page
    assert "Token 2" in page and "Token 4" in page and "Token 3" not in page


def test_bad_input_exits_2_and_names_the_problem(collection: Path, tmp_path: Path):
    runner = CliRunner()
    missing = runner.invoke(app, ["audit", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and "nope.yaml" in missing.output
    assert runner.invoke(app, ["audit", str(collection), "--dry-run"]).exit_code == 2
    never_run = write_collection(tmp_path / "fresh", size=2)
    result = runner.invoke(app, ["audit", str(never_run)])
    assert result.exit_code == 2 and "mintprep run" in result.output


def test_a_live_file_past_the_image_bound_is_refused_while_read(monkeypatch):
    """What the contract points at may be anything: a file past the bound is a reason, never held whole."""
    from mintprep.stages import audit
    from mintprep.ipfs.unixfs import get_profile, import_bytes

    monkeypatch.setattr(audit, "MAX_IMPORTED_IMAGE_BYTES", 300_000)
    big = import_bytes(bytes(range(256)) * 4096, get_profile("kubo-cidv1"))  # 1 MiB in four 256 KiB blocks
    blocks = {block.cid: block.data for block in big.blocks}
    asked: list[object] = []

    def fetch(cid):
        asked.append(cid)
        return blocks.get(cid)

    why = audit._fetch_live_file(f"ipfs://{big.root}", [audit.BlockSource("their-gateway", fetch, None)], {})
    assert why == "their-gateway: more than 300000 bytes"
    assert len(asked) == 1  # the root, whose filesize says 1 MiB: refused before a leaf was fetched
