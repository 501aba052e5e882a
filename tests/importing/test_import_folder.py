"""`mintprep import --from FOLDER` as a creator uses it: a HashLips-style folder (written by a plain PIL script,
tests.support.foreign) named relative to the shell's directory; a token whose image is no raster image or whose
metadata is not bounded JSON is skipped, named, and the import exits 1; importing again after fixing the folder
updates those tokens; an import SIGKILLed after each of its durable writes (per batch of tokens) in turn finishes, on rerun, in the same
ledger as an uninterrupted import; and `run` afterwards generates nothing for the imported tokens."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mintprep.collection.config import load_collection
from mintprep.base.faults import FAULT_ENV
from mintprep.commands.importing import import_collection
from mintprep.commands.review import gather_review
from mintprep.commands import run_collection
from mintprep.commands.status import collection_status
from mintprep.ipfs.reader import read_file
from tests.support.foreign import make_foreign_collection
from tests.conftest import REPO, write_collection

SIZE = 3


def mintprep(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mintprep", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """tmp/export: images/<n>.png + json/<n>.json as HashLips writes them; tmp/col/collection.yaml."""
    foreign = make_foreign_collection(tmp_path / "node", SIZE, {})
    for token_id, document in foreign.documents.items():
        write_token(tmp_path / "export", token_id, dict(document, image=f"{token_id}.png"),
                    read_file(foreign.image_cids[token_id], foreign.store.get))
    write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1)
    return tmp_path


def write_token(folder: Path, token_id: int, document: dict | bytes, image: bytes) -> None:
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "json").mkdir(parents=True, exist_ok=True)
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    (folder / "json" / f"{token_id}.json").write_bytes(data)
    (folder / "images" / f"{token_id}.png").write_bytes(image)


def ledger_state(col_dir: Path) -> dict:
    """What an import leaves that matters: pieces, the current manifest, active pins, imports, stored objects,
    and no unfinished journal."""
    with sqlite3.connect(col_dir / ".mintprep" / "state.db") as db:
        rows = lambda sql: sorted(db.execute(sql).fetchall())  # noqa: E731
        return {
            "pieces": rows("SELECT token_id, request_key, png_sha256, image_cid, metadata_cid, status FROM pieces"),
            "manifest": db.execute("SELECT metadata_root, manifest_cid FROM manifests ORDER BY id DESC LIMIT 1")
                          .fetchone(),
            "pins": rows("SELECT cid, backend, kind FROM pins WHERE unpinned_at IS NULL"),
            "imports": rows("SELECT token_id, source, traits FROM imports"),
            "open_journals": rows("SELECT kind FROM journal WHERE finished IS NULL"),
            "objects": sorted(p.name for p in (col_dir / ".mintprep" / "objects").rglob("*") if p.is_file()),
        }


@pytest.mark.slow
def test_bad_tokens_are_named_exit_1_and_a_fixed_folder_imports_them(workdir: Path):
    export = workdir / "export"
    good = {t: (export / "json" / f"{t}.json").read_bytes() for t in (1, 2, 3)}
    (export / "images" / "2.png").write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg"/>')  # named .png
    (export / "json" / "3.json").write_bytes(good[3].replace(b'"edition": 3', b'"edition": NaN'))

    first = mintprep("import", "col/collection.yaml", "--from", "export", "--json", cwd=workdir)

    assert first.returncode == 1, first.stderr
    answer = json.loads(first.stdout)
    assert [t["token_id"] for t in answer["imported"]] == [1] and answer["exit_code"] == 1
    assert "not a PNG, JPEG, GIF or WebP" in answer["skipped"]["2"] and "2.png" in answer["skipped"]["2"]
    assert "NaN is not JSON" in answer["skipped"]["3"]

    huge = export / "images" / "2.png"
    with huge.open("wb") as sparse:  # 1 GB named .png: refused by its size, never read
        sparse.truncate(1 << 30)
    again = mintprep("import", "collection.yaml", "--from", str(export), "--json", cwd=workdir / "col")
    assert again.returncode == 1 and "bytes, more than" in json.loads(again.stdout)["skipped"]["2"]

    foreign = make_foreign_collection(workdir / "node2", SIZE, {})
    huge.write_bytes(read_file(foreign.image_cids[2], foreign.store.get))
    (export / "json" / "3.json").write_bytes(good[3])
    fixed = mintprep("import", "col/collection.yaml", "--from", "export", "--json", cwd=workdir)

    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert sorted(t["token_id"] for t in json.loads(fixed.stdout)["imported"]) == [1, 2, 3]
    assert [p[0] for p in ledger_state(workdir / "col")["pieces"] if p[1].startswith("imported:")] == [1, 2, 3]


@pytest.mark.slow  # a child process per kill point and per rerun: about 30 imports
def test_an_import_killed_after_any_write_resumes_to_the_uninterrupted_ledger(workdir: Path, tmp_path: Path):
    pristine = tmp_path / "pristine"
    shutil.copytree(workdir / "col", pristine)
    done = mintprep("import", "col/collection.yaml", "--from", "export", cwd=workdir)
    assert done.returncode == 0, done.stderr
    reference = ledger_state(workdir / "col")

    write = 0
    while True:
        write += 1
        shutil.rmtree(workdir / "col")
        shutil.copytree(pristine, workdir / "col")
        killed = mintprep("import", "col/collection.yaml", "--from", "export", cwd=workdir,
                          env={FAULT_ENV: f"import-write-{write}"})
        if killed.returncode == 0:
            break  # fewer writes than `write`: every one has been a kill point
        assert killed.returncode == -9, f"write {write}: {killed.stderr[-500:]}"
        rerun = mintprep("import", "col/collection.yaml", "--from", "export", cwd=workdir)
        assert rerun.returncode == 0, f"rerun after a kill at write {write}: {rerun.stderr[-800:]}"
        assert ledger_state(workdir / "col") == reference, f"killed after write {write}"
    # one batch: the journal, its objects, its pins, the manifest, the pieces and the imports rows (tokens are
    # recorded a batch at a time; tests/importing/test_kill_converges.py kills a several-batch import at random moments)
    assert write > 6, "every durable write was a kill point"

    report = run_collection(load_collection(workdir / "col" / "collection.yaml"))
    assert report.generated == 0 and report.pinned == 0 and report.complete, report.to_json()


def test_each_imported_file_is_stored_once_and_its_block_is_a_link_to_it(workdir: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    """kubo-cidv1 stores a one-block file as a raw leaf whose block is the file's bytes, named by their sha256 as
    the object store names its copy: the block store links to that copy instead of writing the bytes again (an
    image and its metadata document are one file each on disk), and what audit reads back is intact. The metadata
    directory is made from the documents the import holds, none read back from the object store it wrote them to."""
    from mintprep.base import sha256_hex
    from mintprep.commands.audit import audit_collection
    from mintprep.ipfs.cid import CID
    from mintprep.ipfs.store import BlockStore
    from mintprep.state.objects import ObjectStore

    path = workdir / "col" / "collection.yaml"
    read_back: list[str] = []
    get = ObjectStore.get

    def get_and_note(store: ObjectStore, sha: str) -> bytes:
        data = get(store, sha)
        read_back.append(sha)
        return data

    monkeypatch.setattr(ObjectStore, "get", get_and_note)
    plan = import_collection(load_collection(path), "export", cwd=workdir)
    monkeypatch.undo()
    assert {sha256_hex(token.metadata) for token in plan.tokens} & set(read_back) == set()

    col = load_collection(path)
    store, objects = BlockStore(col.state.ipfs), ObjectStore(col.state_dir / "objects")
    published = {p[0]: p[4] for p in ledger_state(workdir / "col")["pieces"]}
    assert sorted(published) == [t.token_id for t in plan.tokens] == [1, 2, 3]
    for token in plan.tokens:
        image, document = CID.parse(token.image_cid), CID.parse(published[token.token_id])
        assert os.path.samefile(store.path_for(image), objects.path(image.digest.hex())), token.token_id
        assert os.path.samefile(store.path_for(document), objects.path(document.digest.hex())), token.token_id
        assert store.get(document) == objects.get(document.digest.hex()) == token.metadata
    assert audit_collection(col, check_chain=False).ok


def test_a_zero_indexed_folder_keeps_token_0_and_run_generates_nothing(tmp_path: Path):
    """Sugar, thirdweb and ERC721A folders number tokens from 0: token 0 is imported, and no token `size` appears
    in the run, the review or the status's rarity table."""
    foreign = make_foreign_collection(tmp_path / "node", SIZE, {})
    for token_id, document in foreign.documents.items():  # 1..SIZE written as 0..SIZE-1
        write_token(tmp_path / "export", token_id - 1, dict(document, image=f"{token_id - 1}.png"),
                    read_file(foreign.image_cids[token_id], foreign.store.get))
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1)

    plan = import_collection(load_collection(path), "export", cwd=tmp_path)

    assert [t.token_id for t in plan.tokens] == list(range(SIZE)) and plan.skipped == {}
    report = run_collection(load_collection(path))
    assert report.generated == 0 and report.pieces == SIZE and report.complete, report.to_json()
    assert [p[0] for p in ledger_state(tmp_path / "col")["pieces"]] == list(range(SIZE))
    review = gather_review(load_collection(path))
    assert [t.token_id for t in review.tokens] == list(range(SIZE))
    assert {t.status for t in review.tokens} == {"pinned"}
    ranked = collection_status(load_collection(path))["rarity"]["tokens"]
    assert sorted(t["token_id"] for t in ranked) == list(range(SIZE))
