"""`mintprep publish` (dir and ipfs targets, bad input) and the `serve` preview, on a real ledger and block store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.collection.config import load_collection
from mintprep.base.hashing import canonical_json
from mintprep.ipfs.backends import LocalBackend
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.unixfs import get_profile, import_bytes
from mintprep.state.ledger import Ledger
from mintprep.page import read_page_config
from mintprep.page.serve import preview
from mintprep.base.sitedir import read_tree
from mintprep.state.workspace import Workspace
from tests.conftest import write_collection
from tests.page.conftest import SampleCollection, sample_collection

runner = CliRunner()


def collection_with_manifest(folder: Path, sample: SampleCollection, **changes: object) -> Path:
    """A collection whose ledger holds `sample`'s manifest and whose local IPFS store holds its images."""
    path = write_collection(folder, **changes)
    col = load_collection(path)
    backend = LocalBackend(col.state_dir)
    profile = get_profile(col.spec.ipfs.profile)
    with Ledger.open(col.state_dir) as ledger:
        for cid, png in sample.images.items():
            assert backend.pin_dag(import_bytes(png, profile), name=cid).cid == cid
        sha = ledger.objects.put(canonical_json(sample.manifest))
        ledger.record_manifest(metadata_root=sample.manifest["metadata_root"], manifest_cid=sample.manifest["metadata_root"],
                               manifest_sha256=sha, provenance_hash=sample.manifest["provenance_hash"])
    return path


def test_publish_to_a_folder(tmp_path: Path) -> None:
    sample = sample_collection(3)
    path = collection_with_manifest(tmp_path / "col", sample, page={"publish": {"target": "dir", "dir": "public"}})
    done = runner.invoke(app, ["publish", str(path), "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    public = tmp_path / "col" / "public"
    assert result["target"] == "dir" and Path(result["location"]) == public
    assert (public / "index.html").read_bytes() == (tmp_path / "col" / "site" / "index.html").read_bytes()
    assert read_page_config(public / "index.html")["metadata_root"] == sample.manifest["metadata_root"]
    with Ledger.open(tmp_path / "col" / ".mintprep", readonly=True) as ledger:
        record = ledger.latest_publish()
    assert (record.target, record.location, record.metadata_root, record.contract) == (
        "dir", str(public), sample.manifest["metadata_root"], None)


def test_publish_to_ipfs_pins_the_site_folder(tmp_path: Path) -> None:
    sample = sample_collection(3)
    path = collection_with_manifest(tmp_path / "col", sample)
    done = runner.invoke(app, ["publish", str(path), "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    cid = result["site_cid"]
    assert result["location"] == f"https://ipfs.io/ipfs/{cid}/"
    state = tmp_path / "col" / ".mintprep"
    backend = LocalBackend(state)
    assert backend.is_pinned(cid)
    gateway = serve_gateway(backend.store)
    try:
        base = f"http://127.0.0.1:{gateway.server_address[1]}/ipfs/{cid}"
        site_files = read_tree(tmp_path / "col" / "site")
        assert any(rel.startswith("gallery/") for rel in site_files), "the gallery chunks are part of the site"
        for rel, data in site_files.items():
            assert requests.get(f"{base}/{rel}", timeout=5).content == data
    finally:
        gateway.shutdown()
        gateway.server_close()
    again = json.loads(runner.invoke(app, ["publish", str(path), "--json"]).stdout)
    assert again["site_cid"] == cid, "same page, same CID"


def test_publish_before_any_run_is_bad_input(tmp_path: Path) -> None:
    path = write_collection(tmp_path / "col")
    Ledger.open(tmp_path / "col" / ".mintprep").close()
    done = runner.invoke(app, ["publish", str(path)])
    assert done.exit_code == 2
    assert "no manifest yet" in done.stderr
    assert not (tmp_path / "col" / "site").exists()


def test_publish_to_netlify_without_token_names_the_variable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NETLIFY_AUTH_TOKEN", raising=False)
    path = collection_with_manifest(tmp_path / "col", sample_collection(1),
                                    page={"publish": {"target": "netlify", "netlify_site_id": "abc"}})
    done = runner.invoke(app, ["publish", str(path)])
    assert done.exit_code == 2
    assert "NETLIFY_AUTH_TOKEN" in done.stderr


@pytest.mark.parametrize(("publish", "field"), [({"target": "dir"}, "dir:"), ({"target": "netlify"}, "netlify_site_id")])
def test_publish_target_without_its_option_is_a_config_error(tmp_path: Path, publish, field: str) -> None:
    path = write_collection(tmp_path / "col", page={"publish": publish})
    done = runner.invoke(app, ["publish", str(path)])
    assert done.exit_code == 2
    assert "page.publish" in done.stderr and field in done.stderr


def test_serve_previews_the_page_with_images_from_the_local_store(tmp_path: Path) -> None:
    sample = sample_collection(2)
    col = load_collection(collection_with_manifest(tmp_path / "col", sample))
    with Workspace.open(col, readonly=True) as ws, preview(ws) as running:
        page = requests.get(running.url, timeout=5)
        assert page.status_code == 200 and 'id="mintprep-config"' in page.text
        assert running.gateway.startswith("http://127.0.0.1:")
        assert f"img-src 'self' data: {running.gateway}" in page.text
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"], "the preview sends _headers too"
        chunks = read_page_config(running.build.index)["gallery"]["path"]
        chunk = requests.get(f"{running.url}{chunks}0.json", timeout=5)
        assert [entry[0] for entry in chunk.json()] == [1, 2]
        first = sample.manifest["tokens"][0]["image_cid"]
        image = requests.get(f"{running.gateway}/ipfs/{first}", timeout=5)
        assert image.content == sample.images[first]
    assert not col.page_dir.exists(), "the preview never writes the publishable site"
    with pytest.raises(requests.ConnectionError):
        requests.get(running.url, timeout=2)
