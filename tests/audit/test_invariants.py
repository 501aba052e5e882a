"""What has been published stays published. The upgrade case (guards tightened after pieces were published),
each kind of damage to a built collection (audit names it, repair heals it, a second audit and a `run` are
clean, no temp file outlives the command), a repair that fails midway, and the base-URI gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mintprep.commands.audit import audit_collection
from mintprep.collection.config import load_collection
from mintprep.base.errors import RemoteError, UserError
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.cid import CID
from mintprep.ipfs.reader import list_directory, read_file
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.state.ledger import Ledger
from mintprep.commands import run_collection
from mintprep.chain.base_uri import check_base_uri_change
from mintprep.base.faults import FAULT_ENV
from mintprep.commands.repair import repair_collection
from tests.support.breakage import broken_pngs, plant_images
from tests.support.faults import killed_at_every_step, run_mintprep
from tests.support.state import state_fingerprint


def published_directory(path: Path) -> dict[int, dict]:
    """The current metadata directory, read back from the store: token id -> its metadata document."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        root = ledger.current_manifest().metadata_root
    listing = list_directory(root, fetch)
    return {int(name[:-5]): json.loads(read_file(cid, fetch)) for name, cid in listing.items() if name[0].isdigit()}


def tighten_guards(path: Path) -> set[int]:
    """Raise `guards.min_std` above some published pieces' luma std; return the tokens that now fail."""
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    from mintprep.guards.image_guards import validate_png

    with Ledger.open(col.state_dir, readonly=True) as ledger:
        stds = {t.token_id: validate_png(read_file(t.image_cid, fetch), col.spec.guards,
                                         upscale=col.spec.generator.upscale).metrics["luma_std"]
                for t in ledger.current_manifest().manifest.tokens}
    threshold = sorted(stds.values())[1] + 0.001
    data = yaml.safe_load(path.read_text())
    data.setdefault("guards", {})["min_std"] = threshold
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return {t for t, std in stds.items() if std < threshold}


def no_temp_files(path: Path) -> list[Path]:
    return [p for p in path.parent.rglob("*.tmp")]


def test_tightened_guards_never_drop_a_published_token(collection: Path):
    before = published_directory(collection)
    failing = tighten_guards(collection)
    assert len(failing) == 2

    report = run_collection(load_collection(collection))

    after_run = published_directory(collection)
    assert sorted(after_run) == sorted(before) == [1, 2, 3, 4, 5], "every published token keeps its metadata file"
    for token_id in report.kept_published:
        assert after_run[token_id] == before[token_id], f"token {token_id}: rejected now, its published file stays"
    assert set(report.kept_published) == {f.token_id for f in report.rejected}
    audit = audit_collection(load_collection(collection))
    assert {p.token_id for p in audit.problems} == set(report.kept_published), "audit names the kept pieces"

    outcome = repair_collection(load_collection(collection))
    assert sorted(published_directory(collection)) == [1, 2, 3, 4, 5]
    assert outcome.exit_code in (0, 1) and not no_temp_files(collection)


DAMAGE = ["rotted-image-block", "rotted-metadata-block", "lost-metadata-root", "garbled-object", "stale-journal"]


def damage(path: Path, kind: str) -> set[tuple[int | None, str]]:
    """Break the collection one way; return the (token, kind) problems audit must name."""
    col = load_collection(path)
    store = make_backend(col.spec.ipfs, col.state_dir).store
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        record, pieces = ledger.current_manifest(), ledger.pieces()
        objects = ledger.objects
    if kind == "rotted-image-block":
        store.path_for(CID.parse(pieces[1].image_cid)).write_bytes(b"rotted bytes")
        return {(1, "image-corrupt")}
    if kind == "rotted-metadata-block":
        store.path_for(CID.parse(pieces[2].metadata_cid)).write_bytes(b"rotted bytes")
        return {(2, "metadata-unretrievable")}
    if kind == "lost-metadata-root":
        store.path_for(CID.parse(record.metadata_root)).unlink()
        return {(None, "metadata-unretrievable")}
    if kind == "garbled-object":
        objects.path(pieces[3].png_sha256).write_bytes(b"garbled")
        return {(3, "object-corrupt")}
    planted = plant_images(path, {4: broken_pngs(col)["noise"]})
    assert planted and run_mintprep(["audit", str(path), "--repair"], {FAULT_ENV: "repair-step-3"}) < 0  # killed midway
    return {(None, "repair-interrupted")}


@pytest.mark.parametrize("kind", DAMAGE)
@pytest.mark.slow
def test_each_kind_of_damage_is_named_then_healed(collection: Path, kind: str):
    expected = damage(collection, kind)
    col = load_collection(collection)

    named = {(p.token_id, p.kind) for p in audit_collection(col).problems}
    assert expected <= named, named
    outcome = repair_collection(col)

    assert outcome.status == "repaired" and outcome.after.ok, outcome.to_json()
    assert audit_collection(col).ok
    report = run_collection(col)
    assert report.exit_code == 0 and report.generated == 0, report.to_json()
    assert audit_collection(col).ok and not no_temp_files(collection)


@pytest.mark.slow
def test_run_notices_a_corrupt_object_it_relies_on(collection: Path):
    col = load_collection(collection)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        piece = ledger.pieces()[3]
        path = ledger.objects.path(piece.png_sha256)
    path.write_bytes(b"garbled")
    report = run_collection(col)
    assert report.exit_code == 0 and report.generated == 1  # made again, from the same seed: the same bytes
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.objects.intact(piece.png_sha256) and ledger.pieces()[3].image_cid == piece.image_cid


@pytest.mark.slow
def test_a_repair_that_fails_midway_closes_its_journal_and_the_next_one_finishes(collection: Path,
                                                                               monkeypatch: pytest.MonkeyPatch):
    col = load_collection(collection)
    plant_images(collection, {2: broken_pngs(col)["black"]})
    import mintprep.page as page  # the page stage takes it from the package's face

    def unreachable(*args, **kwargs):
        raise RemoteError("the page host did not answer")  # a real failure mode of step 4 (republish)

    monkeypatch.setattr(page, "build_collection_page", unreachable)
    with pytest.raises(RemoteError):
        repair_collection(col)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.open_journal("repair") is None
        assert "page host" in ledger.last_journal("repair").plan["abandoned"]
    monkeypatch.undo()

    outcome = repair_collection(col)
    assert outcome.status == "repaired" and outcome.after.ok, outcome.to_json()


def test_the_base_uri_gate_refuses_a_root_lacking_a_minted_token(collection: Path):
    col = load_collection(collection)
    backend, profile = make_backend(col.spec.ipfs, col.state_dir), get_profile(col.spec.ipfs.profile)
    with Ledger.open(col.state_dir) as ledger:
        record = ledger.current_manifest()
        fetch = backend.fetch_block
        files = {name: import_bytes(read_file(cid, fetch), profile)
                 for name, cid in list_directory(record.metadata_root, fetch).items() if name != "2.json"}
        lacking = backend.pin_dag(import_directory(files, profile), name="without-2").cid
        current = f"ipfs://{record.metadata_root}/"

        check_base_uri_change(ledger, current, record.metadata_root, [1, 2], fetch)  # the full root passes
        with pytest.raises(UserError, match=r"minted token\(s\) 2"):
            check_base_uri_change(ledger, current, lacking, [1, 2], fetch)
        check_base_uri_change(ledger, current, lacking, [1], fetch)  # token 2 not minted: nothing lost
        with pytest.raises(UserError, match="not one this collection's ledger recorded"):
            check_base_uri_change(ledger, "ipfs://bafyelsewhere/", record.metadata_root, [1], fetch)
    assert state_fingerprint(collection)


def test_the_base_uri_gate_compares_minted_documents_not_file_names(collection: Path):
    """A root with `2.json` present but different bytes (another image) would change what token 2's owner holds."""
    col = load_collection(collection)
    backend, profile = make_backend(col.spec.ipfs, col.state_dir), get_profile(col.spec.ipfs.profile)
    with Ledger.open(col.state_dir) as ledger:
        record = ledger.current_manifest()
        fetch = backend.fetch_block
        files = {name: read_file(cid, fetch) for name, cid in list_directory(record.metadata_root, fetch).items()}
        swapped = dict(files, **{"2.json": files["3.json"]})  # same names, token 2 now shows token 3's art
        root = backend.pin_dag(import_directory({n: import_bytes(d, profile) for n, d in swapped.items()}, profile),
                               name="swapped").cid
        current = f"ipfs://{record.metadata_root}/"

        with pytest.raises(UserError, match=r"changes the metadata of minted token\(s\) 2 .*--include-minted"):
            check_base_uri_change(ledger, current, root, [1, 2], fetch)
        check_base_uri_change(ledger, current, root, [1], fetch)  # token 2 not minted: free to change
        check_base_uri_change(ledger, current, root, [1, 2], fetch, include_minted=True)  # asked for
        check_base_uri_change(ledger, current, record.metadata_root, [1, 2, 3], fetch)  # unchanged root passes
        # An ERC721A-style layout plugs its file names in: "2" instead of "2.json".
        bare = backend.pin_dag(import_directory({n.removesuffix(".json"): import_bytes(d, profile)
                                                 for n, d in swapped.items()}, profile), name="bare").cid
        with pytest.raises(UserError, match=r"minted token\(s\) 2"):
            check_base_uri_change(ledger, current, bare, [2], fetch)  # "2.json" absent there


def minted_uris_resolve(path: Path, drop, minted: int) -> None:
    col = load_collection(path)
    fetch = make_backend(col.spec.ipfs, col.state_dir).fetch_block
    from mintprep.ipfs.uri import resolve

    for token_id in range(1, minted + 1):
        document = json.loads(read_file(resolve(drop.functions.tokenURI(token_id).call(), fetch), fetch))
        read_file(resolve(document["image"], fetch), fetch)


def test_upgrade_on_chain_minted_tokens_resolve_after_every_step_and_every_kill(collection: Path, chain,
                                                                                tmp_path: Path):
    import shutil

    from mintprep.chain.keys import PRIVATE_KEY_ENV
    from mintprep.commands.repair import STEPS
    from tests.support.state import final_state
    from tests.support.anvil import DropParams, deploy_test_drop

    col = load_collection(collection)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        root = ledger.current_manifest().metadata_root
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=col.spec.size, base_uri=f"ipfs://{root}/"))
    drop = drop.contract
    minted = 3
    drop.functions.mint(0, minted, []).transact({"from": chain.accounts[1].address, "value": minted * 630_000_000_000_000})
    data = yaml.safe_load(collection.read_text())
    data["chain"].update(rpc_url=chain.node.url, contract=drop.address)
    collection.write_text(yaml.safe_dump(data, sort_keys=False))
    tighten_guards(collection)

    assert run_mintprep(["run", str(collection)]) in (0, 1)
    assert sorted(published_directory(collection)) == [1, 2, 3, 4, 5]
    minted_uris_resolve(collection, drop, minted)

    env = {PRIVATE_KEY_ENV: chain.owner.key.hex()}
    pristine = tmp_path / "pristine"
    shutil.copytree(collection.parent, pristine)
    rpc = chain.w3.provider
    snapshot = rpc.make_request("evm_snapshot", [])["result"]
    assert run_mintprep(["audit", str(collection), "--repair"], env) in (0, 1)
    reference = final_state(collection)
    assert drop.functions.baseURI().call() == f"ipfs://{reference['metadata_root']}/"
    minted_uris_resolve(collection, drop, minted)

    for step, path in killed_at_every_step(pristine, collection.name, tmp_path, rpc, snapshot, env):
        minted_uris_resolve(path, drop, minted)
        assert sorted(published_directory(path)) == [1, 2, 3, 4, 5]
        assert run_mintprep(["audit", str(path), "--repair"], env) in (0, 1)
        assert final_state(path) == reference, f"killed at step {step} ({STEPS[step - 1].name})"
        minted_uris_resolve(path, drop, minted)
