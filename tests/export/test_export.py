"""`mintprep export`: a collection built by the real pipeline written out as a HashLips-style folder, its files
byte-identical to what is pinned; extension-less names on request; an existing non-empty folder refused (exit 2)
and left as it was."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.cid import as_cid
from mintprep.ipfs.reader import list_directory, read_file
from mintprep.state.ledger import Ledger
from tests.support.built_collection import SIZE


def export(*args: str):
    result = CliRunner().invoke(app, ["export", *args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def published(path: Path) -> tuple[dict[str, bytes], dict[int, bytes]]:
    """The current root's files and each token's pinned PNG, read from verified blocks."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        record = ledger.current_manifest()
    files = {name: read_file(cid, fetch) for name, cid in list_directory(record.metadata_root, fetch).items()}
    return files, {t.token_id: read_file(t.image_cid, fetch) for t in record.manifest.tokens}


def test_export_writes_the_pinned_files_as_a_hashlips_folder(collection: Path, tmp_path: Path):
    files, images = published(collection)
    code, report = export(str(collection), "-o", str(tmp_path / "out"))

    assert code == 0 and report["tokens"] == list(range(1, SIZE + 1)) and report["files"] == 2 * SIZE + 1
    out = tmp_path / "out"
    for token_id in range(1, SIZE + 1):
        assert (out / "json" / f"{token_id}.json").read_bytes() == files[f"{token_id}.json"]
        assert (out / "images" / f"{token_id}.png").read_bytes() == images[token_id]
    listed = json.loads((out / "json" / "_metadata.json").read_text())
    assert [d["image"] for d in listed] == [json.loads(files[f"{t}.json"])["image"] for t in range(1, SIZE + 1)]

    code, report = export(str(collection), "-o", str(tmp_path / "erc721a"), "--names", "extensionless")
    assert code == 0 and report["names"] == "extensionless"
    assert (tmp_path / "erc721a" / "json" / "1").read_bytes() == files["1.json"]
    assert not (tmp_path / "erc721a" / "json" / "1.json").exists()


def test_export_refuses_a_non_empty_folder_and_a_wrong_name_style(collection: Path, tmp_path: Path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    code, answer = export(str(collection), "-o", str(taken))
    assert code == 2 and answer["error"]["path"] == str(taken) and "not an empty folder" in answer["error"]["message"]
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]

    code, answer = export(str(collection), "-o", str(tmp_path / "new"), "--names", "yaml")
    assert code == 2 and "--names" in answer["error"]["message"] and not (tmp_path / "new").exists()
    (tmp_path / "empty").mkdir()
    assert export(str(collection), "-o", str(tmp_path / "empty"))[0] == 0  # an empty folder is fine


def test_an_export_that_cannot_read_the_last_token_leaves_no_folder_behind(collection: Path, tmp_path: Path):
    """Files are written as they are read (an export no longer holds every image); one the store cannot give back,
    the last token's metadata file here, ends it with exit 2 and neither the folder nor its staging copy left."""
    from mintprep.ipfs.store import BlockStore

    col = load_collection(collection)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        root = ledger.current_manifest().metadata_root
    store = BlockStore(col.state_dir / "ipfs")
    store.path_for(list_directory(root, store.get)[f"{SIZE}.json"]).unlink()
    parent = tmp_path / "exports"
    code, answer = export(str(collection), "-o", str(parent / "out"))
    assert code == 2 and "cannot be read whole" in answer["error"]["message"]
    assert list(parent.iterdir()) == []


def test_a_garbled_stored_image_is_exported_from_its_checked_blocks_and_refused_when_they_are_garbled_too(
        collection: Path, tmp_path: Path):
    """Each image is checked as it is copied: token 4's copy in the object store garbled, the export writes the pinned
    PNG read from its blocks (each checked against its CID); its blocks garbled as well, exit 2 and neither the
    folder nor its staging copy left (tokens 1 to 3 were written by then)."""
    from mintprep.ipfs.store import BlockStore

    files, images = published(collection)
    col = load_collection(collection)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        token = ledger.current_manifest().manifest.by_token()[4]
        stored = ledger.objects.path(token.png_sha256)
    stored.write_bytes(b"rot" + stored.read_bytes()[3:])
    code, report = export(str(collection), "-o", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "images" / "4.png").read_bytes() == images[4], report

    block = BlockStore(col.state_dir / "ipfs").path_for(as_cid(token.image_cid))
    block.write_bytes(b"rot" + block.read_bytes()[3:])
    parent = tmp_path / "exports"
    code, answer = export(str(collection), "-o", str(parent / "out"))
    assert code == 2 and "cannot be read whole" in answer["error"]["message"]
    assert list(parent.iterdir()) == []


def test_an_image_never_judged_under_today_s_guards_is_judged_and_nothing_is_recorded(collection: Path,
                                                                                       tmp_path: Path):
    """The verdicts the ledger holds are read; an image without one (here: all of them, the rows deleted) is judged
    by the pixel guards, and the export, a reader, records none."""
    import sqlite3

    db = load_collection(collection).state_dir / "state.db"
    with sqlite3.connect(db) as ledger:
        ledger.execute("DELETE FROM verdicts")
    code, report = export(str(collection), "-o", str(tmp_path / "out"))
    assert code == 0 and report["broken"] == [] and len(report["tokens"]) == SIZE
    with sqlite3.connect(db) as ledger:
        assert ledger.execute("SELECT count(*) FROM verdicts").fetchone() == (0,)
