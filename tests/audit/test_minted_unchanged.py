"""A minted token's metadata document and image stay byte-identical through every command that changes what is
published, unless the user passes --include-minted: the upgrade sequence from issue 19 (stored images found broken
after two sales, `run`, `audit`, `audit --repair`) on a real anvil (chain id 8453) with the committed MintprepDrop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.chain.keys import PRIVATE_KEY_ENV
from mintprep.cli import app
from mintprep.collection.config import load_collection
from mintprep.commands.audit import audit_collection
from mintprep.commands.repair import repair_collection
from mintprep.commands import run_collection
from mintprep.guards.image_guards import validate_png
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.reader import read_file
from mintprep.ipfs.uri import resolve
from mintprep.state.ledger import Ledger
from tests.support.breakage import broken_pngs, plant_images
from tests.repair.test_repair_chain import PRICE_WEI, on_chain
from tests.support.anvil import Chain


def live_token(path: Path, drop, token_id: int) -> tuple[bytes, bytes]:
    """What a collector sees for `token_id`: its metadata document and the image it names, from verified blocks."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    document = read_file(resolve(drop.functions.tokenURI(token_id).call(), fetch), fetch)
    image = read_file(resolve(json.loads(document)["image"], fetch), fetch)
    return document, image


@pytest.fixture
def sold(collection: Path, chain: Chain, monkeypatch: pytest.MonkeyPatch):
    """Tokens 2-4 broken (black, flat, noise), the drop deployed at that root, tokens 1 and 2 sold."""
    _, drop = on_chain(collection, chain)
    drop.functions.mint(0, 2, []).transact({"from": chain.accounts[1].address, "value": 2 * PRICE_WEI})
    monkeypatch.setenv(PRIVATE_KEY_ENV, chain.owner.key.hex())
    return drop, {t: live_token(collection, drop, t) for t in (1, 2)}


def test_upgrade_sequence_keeps_the_sold_tokens_art_until_asked(collection: Path, sold):
    drop, before = sold
    col = load_collection(collection)

    report = run_collection(col)  # today's guards reject tokens 2-4; 2 is sold

    assert [f.token_id for f in report.minted_failing] == [2]
    assert "minted, fails today's guards: see audit" in report.minted_failing[0].reason
    assert report.exit_code == 1 and 2 not in [r["token_id"] for r in report.resampled]
    audit = audit_collection(col)
    assert (2, "image-broken") in [(p.token_id, p.kind) for p in audit.problems]
    assert "chain-base-uri-stale" in {p.kind for p in audit.problems}

    repaired = repair_collection(col)

    assert drop.functions.baseURI().call() == f"ipfs://{report.metadata_root}/", "the run's root went live"
    assert {t: live_token(collection, drop, t) for t in (1, 2)} == before, "a sold token changed"
    assert [(p.token_id, p.kind) for p in repaired.after.problems] == [(2, "image-broken")]

    included = repair_collection(col, include_minted=True)

    assert [t.token_id for t in included.plan.tokens] == [2] and included.after.ok
    document, image = live_token(collection, drop, 2)
    assert (document, image) != before[2] and validate_png(image, col.spec.guards, upscale=col.spec.generator.upscale).ok
    assert live_token(collection, drop, 1) == before[1]


def test_a_root_that_changed_a_sold_token_is_not_published_by_default(collection: Path, sold):
    """A ledger whose newest root replaced sold token 2 (an older mintprep's `run`, or `run --include-minted`):
    `contract set-base-uri` refuses it naming the token, and a default repair publishes token 2's live piece."""
    drop, before = sold
    col = load_collection(collection)
    resampled = run_collection(col, include_minted=True)
    assert resampled.minted_failing == []
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        new_image = ledger.current_manifest().manifest.by_token()[2].image_cid
    assert f"ipfs://{new_image}" != json.loads(before[2][0])["image"], "token 2's stored generation replaced it"
    runner = CliRunner()

    refused = runner.invoke(app, ["contract", "set-base-uri", str(collection), "--json"])

    assert refused.exit_code == 2, refused.output
    assert "minted token(s) 2" in json.loads(refused.stdout)["error"]["message"]
    printed = runner.invoke(app, ["contract", "set-base-uri", str(collection), "--print", "--include-minted", "--json"])
    assert printed.exit_code == 0 and json.loads(printed.stdout)["base_uri"] == f"ipfs://{resampled.metadata_root}/"

    repair_collection(col)

    assert {t: live_token(collection, drop, t) for t in (1, 2)} == before
    assert drop.functions.baseURI().call() != f"ipfs://{resampled.metadata_root}/"


def test_run_without_a_contract_changes_nothing_it_would_not_have_before(collection: Path):
    """No contract: nothing is minted, so run replaces a broken piece (here by its stored generation) as before."""
    col = load_collection(collection)
    planted = plant_images(collection, {2: broken_pngs(col)["black"]})
    report = run_collection(col)
    assert report.complete and report.minted_failing == [] and report.chain_check is None
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.current_manifest().manifest.by_token()[2].image_cid != planted[2]
