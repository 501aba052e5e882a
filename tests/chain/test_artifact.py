"""The committed contract artifact is what the committed source compiles to."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from typer.testing import CliRunner

from mintprep.chain.artifact import CONTRACTS_DIR, build_artifacts, load_artifact
from mintprep.cli import app
from mintprep.base.errors import UserError
from tests.support.tools import require_tool

# Contracts in the shapes real collections use (contracts/test/families), for tests/chain/families.
FAMILY_TEST_CONTRACTS = ("HashLipsTutorial", "AzukiStyle", "PerTokenURIs")


def require_solc_js() -> None:
    require_tool("node", "Node.js runs solc-js")
    require_tool(CONTRACTS_DIR / "node_modules" / "solc" / "soljson.js", "solc-js: npm ci --prefix contracts")


def test_artifact_records_the_hash_of_the_current_source():
    """Cheap guard without Node: editing MintprepDrop.sol without rebuilding fails here."""
    artifact = load_artifact()
    source = (CONTRACTS_DIR / "MintprepDrop.sol").read_bytes()
    assert artifact.source_sha256 == hashlib.sha256(source).hexdigest()
    assert artifact.sources["MintprepDrop.sol"] == artifact.source_sha256
    assert artifact.settings == {"evmVersion": "cancun", "optimizer": {"enabled": True, "runs": 200}}
    assert artifact.compiler.startswith("0.8.")
    names = {entry.get("name") for entry in artifact.abi}
    for view in ("phase", "phaseCount", "maxSupply", "totalMinted", "mintedInPhase", "baseURI", "owner", "mint", "reveal"):
        assert view in names


@pytest.mark.parametrize("name", FAMILY_TEST_CONTRACTS)
def test_family_test_artifacts_record_the_hash_of_their_current_source(name: str):
    """Cheap guard without Node: editing a family test contract without rebuilding fails here."""
    artifact = load_artifact(name, CONTRACTS_DIR.parent / "tests" / "chain" / "artifacts")
    source = f"test/families/{name}.sol"
    assert artifact.source_sha256 == artifact.sources[source] == \
        hashlib.sha256((CONTRACTS_DIR / source).read_bytes()).hexdigest()


@pytest.mark.slow
def test_committed_artifacts_match_a_fresh_solc_js_compile():
    """`mintprep contract build --check` (what CI runs) compiles the sources again and compares byte for byte."""
    require_solc_js()
    result = CliRunner().invoke(app, ["contract", "build", "--check", "--json"])
    assert result.exit_code == 0, f"stale artifacts, run `mintprep contract build`: {result.output}"
    assert {entry["contract"]: entry["fresh"] for entry in json.loads(result.stdout)} == {
        "MintprepDrop": True, "ReentrantMinter": True, **dict.fromkeys(FAMILY_TEST_CONTRACTS, True)}


@pytest.mark.slow
def test_check_reports_a_stale_artifact_when_the_source_changes(tmp_path):
    """The freshness check itself can fail: compile a copy whose source differs from what was committed."""
    require_solc_js()
    # Lay out a tree the way the repository is: contracts/ beside mintprep/chain/artifacts and tests/chain/artifacts.
    copy = tmp_path / "contracts"
    shutil.copytree(CONTRACTS_DIR, copy, ignore=shutil.ignore_patterns("node_modules"), symlinks=True)
    (copy / "node_modules").symlink_to(CONTRACTS_DIR / "node_modules")
    for committed in ("mintprep/chain/artifacts/MintprepDrop.json", "tests/chain/artifacts/ReentrantMinter.json",
                      *(f"tests/chain/artifacts/{name}.json" for name in FAMILY_TEST_CONTRACTS)):
        target = tmp_path / committed
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CONTRACTS_DIR.parent / committed, target)
    source = copy / "MintprepDrop.sol"
    source.write_text(source.read_text().replace("error ZeroQuantity();", "error ZeroQuantity();\n    error Unused();"))
    built = {b.contract_name: b.fresh for b in build_artifacts(check=True, contracts_dir=copy)}
    assert built == {"MintprepDrop": False, "ReentrantMinter": True, **dict.fromkeys(FAMILY_TEST_CONTRACTS, True)}


def test_build_without_node_modules_names_the_fix(tmp_path):
    require_tool("node", "Node.js runs solc-js")
    (tmp_path / "compile.js").write_text("")
    with pytest.raises(UserError, match="npm ci --prefix"):
        build_artifacts(contracts_dir=tmp_path)
