"""`mintprep provenance`: the value recomputed from a published collection equals the README's rule computed here
with hashlib alone, equals the manifest's, and depends on the order of the files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.commands.test_run import mintprep

README = Path(__file__).resolve().parents[2] / "docs" / "decisions.md"  # the decisions behind README's commands


def readme_rule(images_in_file_order: list[bytes]) -> str:
    """README "Provenance": sha256(d1 || … || dN), di the raw 32-byte sha256 of the image file i.json names."""
    return hashlib.sha256(b"".join(hashlib.sha256(png).digest() for png in images_in_file_order)).hexdigest()


@pytest.mark.slow
def test_provenance_from_the_published_directory_follows_the_readme_rule(small_collection: Path):
    from mintprep.collection.config import load_collection
    from mintprep.ipfs.backends import LocalBackend
    from mintprep.ipfs.reader import list_directory, read_file
    from mintprep.state.ledger import Ledger

    assert "`provenance = sha256(d1 || d2 || … || dN)`" in README.read_text()
    run = mintprep("run", str(small_collection), "--json")
    assert run.returncode == 0, run.stderr
    published = json.loads(run.stdout)
    root = published["metadata_root"]

    # The collector's side: only the published directory, read file by file.
    store = LocalBackend(load_collection(small_collection).state_dir).fetch_block
    listing = list_directory(root, store)
    images = [read_file(json.loads(read_file(listing[f"{i}.json"], store))["image"].removeprefix("ipfs://"), store)
              for i in range(1, 7)]
    assert all(png.startswith(b"\x89PNG") for png in images)
    expected = readme_rule(images)

    checked = mintprep("provenance", str(small_collection), "--verify-from", f"ipfs://{root}", "--json")
    assert checked.returncode == 0, checked.stderr
    answer = json.loads(checked.stdout)
    assert answer["provenance_hash"] == expected and answer["images"] == 6 and answer["metadata_root"] == root
    assert answer["on_chain"] is None and answer["ok"] is None  # no contract configured: nothing to compare with
    with Ledger.open(load_collection(small_collection).state_dir, readonly=True) as ledger:
        assert ledger.current_manifest().provenance_hash == expected, "what the deploy puts on chain"
    page = Path(published["page"]).read_text()  # index.html as `run` built it
    assert expected in page and "raw sha256 digests in token order" in page
    # The hex-text concatenation the code used before is another value: the rule is the raw digests.
    assert expected != hashlib.sha256("".join(hashlib.sha256(p).hexdigest() for p in images).encode()).hexdigest()
    assert expected != readme_rule(images[1:] + images[:1]), "the order of the files is part of the value"


def test_provenance_of_something_that_is_no_ipfs_address_exits_2(small_collection: Path):
    answer = mintprep("provenance", str(small_collection), "--verify-from", "https://example.com/x", "--json")
    assert answer.returncode == 2
    assert "--verify-from: expected ipfs://CID" in json.loads(answer.stdout)["error"]["message"]


@pytest.mark.parametrize(("document", "said"), [
    (b"[" * 200_000 + b"]" * 200_000, "JSON nested deeper than 32 levels"),  # was a RecursionError: "internal error"
    (b'{"image": NaN}', "NaN is not JSON"),
    (b'{"image": "ipfs://x", "pad": "' + b"x" * (2 << 20) + b'"}', "more than 1048576 bytes"),  # never read whole
])
def test_provenance_of_a_hostile_metadata_file_exits_2_naming_it(small_collection: Path, document: bytes, said: str):
    from mintprep.collection.config import load_collection
    from mintprep.ipfs.store import BlockStore
    from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory

    col = load_collection(small_collection)
    profile = get_profile(col.spec.ipfs.profile)
    directory = import_directory({"1.json": import_bytes(document, profile)}, profile)
    BlockStore(col.state_dir / "ipfs").put_many(directory.blocks)
    answer = mintprep("provenance", str(small_collection), "--verify-from", f"ipfs://{directory.root}", "--json")
    assert answer.returncode == 2, answer.stderr
    message = json.loads(answer.stdout)["error"]["message"]
    assert message.startswith(f"ipfs://{directory.root}/1.json: ") and said in message, message
