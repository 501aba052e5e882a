"""What audit, status and export tell the creator of a collection made elsewhere (tests.audit.foreign: HashLips'
shape, written by a plain PIL script): the files HashLips, Sugar and thirdweb put beside the token files are
not problems; style notes on legitimate pixel art stay out of the human output unless --verbose and never count;
status names each piece that needs something and sums up the rest; export names broken tokens, and after a
repair exports the repaired pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.cli.app import app
from mintprep.collection.companions import companion
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.reader import read_file
from mintprep.state.ledger import Ledger
from tests.support.foreign import healthy_png, make_foreign_collection, pixel_art_png
from tests.importing.test_import_folder import write_token
from tests.conftest import write_collection

SIZE = 4


def cli(*args: str) -> tuple[int, dict | str]:
    result = CliRunner().invoke(app, list(args))
    if "--json" in args:
        return result.exit_code, json.loads(result.stdout)
    return result.exit_code, result.output


def imported_folder(tmp_path: Path, broken: dict[int, str], pixel_art: tuple[int, ...] = ()) -> Path:
    """SIZE tokens imported from a HashLips-style folder (images/, json/ with HashLips' _metadata.json)."""
    foreign = make_foreign_collection(tmp_path / "node", SIZE, broken)
    export = tmp_path / "export"
    for token_id, document in foreign.documents.items():
        image = pixel_art_png(token_id) if token_id in pixel_art else read_file(foreign.image_cids[token_id],
                                                                               foreign.store.get)
        write_token(export, token_id, dict(document, image=f"{token_id}.png"), image)
    (export / "json" / "_metadata.json").write_text(json.dumps(list(foreign.documents.values())))
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1)
    code, report = cli("import", str(path), "--from", str(export), "--json")
    assert code == 0, report
    return path


def test_the_companions_of_each_tool_are_known_and_nothing_else():
    for name in ("_metadata.json", "_ipfsMetas.json", "collection.json", "collection.png", "metadata.csv"):
        assert companion(name) is not None, name
    for name in ("1.json", "12", "notes.txt", "collection.exe", "_metadata.json.bak"):
        assert companion(name) is None, name


def test_an_ipfs_root_with_hashlips_and_sugar_companions_audits_without_a_root_mismatch(tmp_path: Path):
    beside = {"_metadata.json": b"[]", "_ipfsMetas.json": b"[]", "collection.json": b'{"name": "Sunflowers"}',
              "collection.png": healthy_png(99), "notes.txt": b"my own notes"}
    foreign = make_foreign_collection(tmp_path / "node", SIZE, {2: "black"}, beside=beside)
    path = write_collection(tmp_path / "col", size=SIZE, generator__upscale=1)
    server = serve_gateway(foreign.store)
    try:
        code, imported = cli("import", str(path), "--from", f"ipfs://{foreign.metadata_root}", "--gateway",
                             f"http://127.0.0.1:{server.server_address[1]}", "--json")
    finally:
        server.shutdown()
    assert code == 0 and imported["metadata_root"] == foreign.metadata_root
    code, audit = cli("audit", str(path), "--json")
    found = [(p["token_id"], p["kind"], p["evidence"].get("entries")) for p in audit["problems"]]
    assert code == 1 and found == [(2, "image-broken", None), (None, "metadata-root-mismatch", ["notes.txt"])]


def test_style_notes_on_pixel_art_stay_out_unless_verbose_and_never_count(tmp_path: Path):
    path = imported_folder(tmp_path, {}, pixel_art=(3,))
    code, audit = cli("audit", str(path), "--json")
    assert code == 0 and audit["problems"] == [] and [w["token_id"] for w in audit["warnings"]] == [3]
    code, quiet = cli("audit", str(path))
    assert code == 0 and "clean" in quiet and "1 style note(s) on healthy images (posterized" in quiet
    assert "token 3" not in quiet
    code, verbose = cli("audit", str(path), "--verbose")
    assert code == 0 and "token 3: posterized" in verbose


@pytest.mark.slow
def test_status_names_each_piece_that_needs_attention_and_sums_up_the_rest(tmp_path: Path):
    fresh = write_collection(tmp_path / "fresh", size=SIZE)
    code, status = cli("status", str(fresh))
    assert code == 0 and "pending: token(s) 1-4" in status and "near-duplicates" not in status

    path = imported_folder(tmp_path, {2: "black"})
    assert cli("run", str(path), "--json")[0] == 1  # the imported black piece is rejected, its published one stays
    code, status = cli("status", str(path), "--json")
    assert code == 0 and status["attention"] == [{"token_id": 2, "needs": "kept", "minted": False}]
    code, human = cli("status", str(path))
    assert "token 2: kept: rejected now" in human and "the rest: 3 fine (pinned, 4 of them imported)" in human
    assert "minted: not known here" in human
    assert "near-duplicates among imported pieces: not judged here (`mintprep audit` names them)" in human

    with Ledger.open(path.parent / ".mintprep") as ledger:  # what `run` records after reading the chain
        ledger.record_minted_seen([2, 3])
    code, status = cli("status", str(path), "--json")
    assert status["attention"] == [{"token_id": 2, "needs": "minted-and-broken", "minted": True}]
    assert "2 minted when `run` last read the chain" in cli("status", str(path))[1]


@pytest.mark.slow
def test_export_names_broken_tokens_and_after_a_repair_exports_the_repaired_piece(tmp_path: Path):
    path = imported_folder(tmp_path, {2: "black"})
    code, human = cli("export", str(path), "-o", str(tmp_path / "before"))
    assert code == 0 and "the images of token(s) 2 fail today's guards" in human
    code, report = cli("audit", str(path), "--repair", "--json")
    assert code == 0, report
    repaired = report["plan"]["replacements"]["2"]["png_sha256"]
    code, exported = cli("export", str(path), "-o", str(tmp_path / "after"), "--json")
    assert code == 0 and exported["broken"] == []
    from mintprep.base.hashing import sha256_hex

    assert sha256_hex((tmp_path / "after" / "images" / "2.png").read_bytes()) == repaired
    document = json.loads((tmp_path / "after" / "json" / "2.json").read_text())
    assert document["image"] == f"ipfs://{report['plan']['replacements']['2']['image_cid']}"

