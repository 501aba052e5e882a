"""`mintprep run` end to end on the tiny model and the local IPFS store (real torch, real SQLite, real files)."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.verify import verify_dag
from mintprep.state.ledger import Ledger
from mintprep.commands.status import collection_status
from tests.conftest import write_collection


def mintprep(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mintprep", *args], capture_output=True, text=True, check=check)


def pinned_cids(col_path: Path) -> dict[int, str]:
    return {t["token_id"]: t["image_cid"] for t in collection_status(load_collection(col_path))["tokens"]}


@pytest.mark.slow
def test_run_then_rerun_does_no_work(small_collection: Path):
    first = mintprep("run", str(small_collection), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["generated"] == 6 and report["pinned"] == 6 and report["rejected"] == []
    assert report["metadata_root"].startswith("bafy") and report["page"]

    second = json.loads(mintprep("run", str(small_collection), "--json", check=True).stdout)
    assert second["generated"] == 0 and second["pinned"] == 0
    assert second["skipped"] == {"generate": 6, "pin": 6}
    assert second["metadata_root"] == report["metadata_root"]
    assert second["manifest_cid"] == report["manifest_cid"]

    col = load_collection(small_collection)
    backend = make_backend(col.spec.ipfs, col.state_dir)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest().manifest.to_json()
        assert [t["token_id"] for t in manifest["tokens"]] == [1, 2, 3, 4, 5, 6]
        for token in manifest["tokens"]:
            png = ledger.objects.get(token["png_sha256"])
            assert png.startswith(b"\x89PNG")
            assert backend.is_pinned(token["image_cid"])
            assert verify_dag(token["image_cid"], backend.fetch_block).ok
        assert verify_dag(manifest["metadata_root"], backend.fetch_block).ok


@pytest.mark.slow
def test_changing_one_trait_regenerates_exactly_that_piece(tmp_path: Path):
    path = write_collection(tmp_path / "c", size=4, generator__steps=3)
    assert mintprep("run", str(path)).returncode == 0
    before = pinned_cids(path)
    data = yaml.safe_load(path.read_text())
    data["pieces"] = {3: {"prompt": "a single lotus, pixel art"}}
    path.write_text(yaml.safe_dump(data))
    report = json.loads(mintprep("run", str(path), "--json", check=True).stdout)
    assert report["generated"] == 1 and report["pinned"] == 1 and report["skipped"]["generate"] == 3
    after = pinned_cids(path)
    assert {t for t in before if before[t] != after[t]} == {3}


@pytest.mark.slow
def test_shrinking_the_collection_leaves_no_token_beyond_size_in_the_ledger(tmp_path: Path):
    """size 3 -> 2: token 3 is no longer part of the collection; status and audit must agree with the manifest."""
    from mintprep.commands.audit import audit_collection

    path = write_collection(tmp_path / "s", size=3, generator__steps=3)
    assert mintprep("run", str(path)).returncode == 0
    write_collection(tmp_path / "s", size=2, generator__steps=3)
    assert mintprep("run", str(path)).returncode == 0
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert sorted(ledger.pieces()) == [1, 2]
    assert [t["token_id"] for t in collection_status(col)["tokens"]] == [1, 2]
    assert audit_collection(col).problems == []


@pytest.mark.slow
def test_sigkill_mid_run_then_rerun_converges(tmp_path: Path):
    path = write_collection(tmp_path / "k", size=10, generator__steps=8)
    proc = subprocess.Popen([sys.executable, "-m", "mintprep", "run", str(path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    db = path.parent / ".mintprep" / "state.db"
    deadline = time.time() + 120
    while time.time() < deadline:
        if db.exists():
            try:
                count = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
                    "SELECT count(*) FROM generations").fetchone()[0]
            except sqlite3.OperationalError:
                count = 0
            if count >= 3:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    rerun = mintprep("run", str(path), "--json")
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["generated"] + report["skipped"]["generate"] == 10
    assert 0 < report["skipped"]["generate"] < 10, "the killed run's finished pieces must be reused, not redone"

    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        pieces = ledger.pieces()
        assert sorted(pieces) == list(range(1, 11)) and all(p.status == "pinned" for p in pieces.values())
        conn = sqlite3.connect(f"file:{col.state_dir / 'state.db'}?mode=ro", uri=True)
        rows = conn.execute("SELECT token_id, png_sha256 FROM generations").fetchall()
        assert sorted(t for t, _ in rows) == list(range(1, 11)), "one generation per piece, no duplicates"
        assert all(ledger.objects.has(sha) for _, sha in rows), "no row may point at a missing object"
        backend = make_backend(col.spec.ipfs, col.state_dir)
        for pin in ledger.active_pins():
            assert verify_dag(pin["cid"], backend.fetch_block).ok, pin
    assert not list(col.state_dir.rglob("*.tmp"))


def test_second_run_while_one_is_running_exits_2(small_collection: Path):
    col = load_collection(small_collection)
    with Ledger.open(col.state_dir):
        result = mintprep("run", str(small_collection))
    assert result.returncode == 2
    assert "another mintprep process" in result.stderr


@pytest.mark.slow
def test_a_piece_whose_vae_overflows_is_rejected_never_written_never_pinned(tmp_path: Path):
    """Token 3 decodes in fp16 through a VAE whose activations really pass 65504 (no NaN is planted by hand);
    the other pieces decode the same model in fp32, where GroupNorm cancels the scale."""
    path = write_collection(
        tmp_path / "nan", size=4,
        generator={"kind": "tiny", "model": "fp16-overflow-vae", "steps": 3, "width": 64, "height": 64,
                   "upscale": 8, "precision": "fp32", "fallback": [], "max_attempts": 2},
        pieces={3: {"generator": {"precision": {"vae": "fp16"}}}},
    )
    result = mintprep("run", str(path), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [f["token_id"] for f in report["rejected"]] == [3]
    assert "decoded_nonfinite" in report["rejected"][0]["reason"]
    assert report["pinned"] == 3

    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        pieces = ledger.pieces()
        assert pieces[3].status == "rejected" and pieces[3].png_sha256 is None and pieces[3].image_cid is None
        assert [t.token_id for t in ledger.current_manifest().manifest.tokens] == [1, 2, 4]
        stored = [p for p in (col.state_dir / "objects").rglob("*") if p.is_file()]
        assert len(stored) == 4, "only the 3 good PNGs and the manifest are stored"
    drops = [json.loads(line) for line in (col.state_dir / "drops.jsonl").read_text().splitlines()]
    assert {d["token_id"] for d in drops} == {3} and len(drops) == 2
    assert all(d["guard"] == "decoded_nonfinite" and d["seed"] for d in drops)
    human = mintprep("run", str(path))
    assert human.returncode == 1 and "token 3 failed" in human.stderr


OPENSEA_KEYS = {"name", "description", "image", "attributes", "external_url", "background_color", "animation_url",
                "image_data", "youtube_url"}


@pytest.mark.slow
def test_two_fresh_runs_give_identical_cids_and_opensea_metadata(tmp_path: Path):
    """Identical art → identical CIDs across two fresh runs (separate ledgers and stores)."""
    from mintprep.ipfs.reader import list_directory, read_file
    from mintprep.commands import run_collection

    reports = [run_collection(load_collection(write_collection(tmp_path / name, size=4, generator__steps=3)))
               for name in ("first", "second")]
    assert reports[0].metadata_root == reports[1].metadata_root
    assert reports[0].manifest_cid == reports[1].manifest_cid
    assert reports[0].provenance_hash == reports[1].provenance_hash

    col = load_collection(tmp_path / "first" / "collection.yaml")
    backend = make_backend(col.spec.ipfs, col.state_dir)
    entries = list_directory(reports[0].metadata_root, backend.fetch_block)
    assert sorted(entries) == ["1.json", "2.json", "3.json", "4.json", "collection.json"]
    traits = set(col.spec.prompt.traits)
    for token_id in range(1, 5):
        meta = json.loads(read_file(entries[f"{token_id}.json"], backend.fetch_block))
        assert set(meta) <= OPENSEA_KEYS and {"name", "description", "image", "attributes"} <= set(meta)
        assert meta["image"].startswith("ipfs://bafkrei") and backend.is_pinned(meta["image"].removeprefix("ipfs://"))
        assert {a["trait_type"] for a in meta["attributes"]} == traits
        assert all(isinstance(a["value"], str) and a["value"] for a in meta["attributes"])
    contract_meta = json.loads(read_file(entries["collection.json"], backend.fetch_block))
    assert contract_meta["name"] == col.spec.name and contract_meta["image"].startswith("ipfs://")
