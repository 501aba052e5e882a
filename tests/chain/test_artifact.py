"""The committed contract artifacts are what the committed sources (and the pinned npm packages) compile to."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.chain.artifact import CONTRACTS_DIR, build_artifacts, load_artifact
from mintprep.cli import app
from mintprep.base.errors import UserError
from tests.support.tools import require_tool

# Contracts in the shapes real collections use (contracts/test/families): artifact file name -> contract name.
FAMILY_TEST_CONTRACTS = {"AzukiStyle": "AzukiStyle", "PerTokenURIs": "PerTokenURIs", "SimpleNft": "NFT",
                         "SimpleNftLowerGas": "SimpleNftLowerGas"}
# The platforms' own contracts, built by contracts/compile_platforms.js from their npm packages: artifact ->
# (npm package, version) it must record.
PLATFORM_CONTRACTS = {
    "DropERC721": ("@thirdweb-dev/contracts", "3.15.0"),
    "ERC1967Proxy": ("@openzeppelin/contracts-4", "4.9.6"),
    "ERC721Drop": ("@zoralabs/nft-drop-contracts", "1.14.1"),
    "ERC721DropProxy": ("@zoralabs/nft-drop-contracts", "1.14.1"),
    "DropMetadataRenderer": ("@zoralabs/nft-drop-contracts", "1.14.1"),
    "ProtocolRewards": ("@zoralabs/protocol-rewards", "1.1.0"),
    "ERC721Creator": ("@manifoldxyz/creator-core-solidity", "3.0.0"),
    "ERC721CreatorImplementation": ("@manifoldxyz/creator-core-solidity", "3.0.0"),
}
TEST_ARTIFACTS = CONTRACTS_DIR.parent / "tests" / "chain" / "artifacts"
PACKAGE_ROOTS = (CONTRACTS_DIR / "node_modules", CONTRACTS_DIR / "vendor-npm")


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
    artifact = load_artifact(name, TEST_ARTIFACTS)
    assert artifact.contract_name == FAMILY_TEST_CONTRACTS[name]
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
        "MintprepDrop": True, "ReentrantMinter": True, "HostileERC721": True,
        **dict.fromkeys(FAMILY_TEST_CONTRACTS.values(), True)}


@pytest.mark.slow
def test_check_reports_a_stale_artifact_when_the_source_changes(tmp_path):
    """The freshness check itself can fail: compile a copy whose source differs from what was committed."""
    require_solc_js()
    # Lay out a tree the way the repository is: contracts/ beside mintprep/chain/artifacts and tests/chain/artifacts.
    copy = tmp_path / "contracts"
    shutil.copytree(CONTRACTS_DIR, copy, ignore=shutil.ignore_patterns("node_modules", "vendor-npm"), symlinks=True)
    (copy / "node_modules").symlink_to(CONTRACTS_DIR / "node_modules")
    for committed in ("mintprep/chain/artifacts/MintprepDrop.json", "tests/chain/artifacts/ReentrantMinter.json",
                      "tests/chain/artifacts/HostileERC721.json",
                      *(f"tests/chain/artifacts/{name}.json" for name in FAMILY_TEST_CONTRACTS)):
        target = tmp_path / committed
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CONTRACTS_DIR.parent / committed, target)
    source = copy / "MintprepDrop.sol"
    source.write_text(source.read_text().replace("error ZeroQuantity();", "error ZeroQuantity();\n    error Unused();"))
    built = {b.contract_name: b.fresh for b in build_artifacts(check=True, contracts_dir=copy)}
    assert built == {"MintprepDrop": False, "ReentrantMinter": True, "HostileERC721": True,
                     **dict.fromkeys(FAMILY_TEST_CONTRACTS.values(), True)}


def test_build_without_node_modules_names_the_fix(tmp_path):
    require_tool("node", "Node.js runs solc-js")
    (tmp_path / "compile.js").write_text("")
    with pytest.raises(UserError, match="npm ci --prefix"):
        build_artifacts(contracts_dir=tmp_path)


def _installed(source_name: str) -> Path | None:
    return next((root / source_name for root in PACKAGE_ROOTS if (root / source_name).is_file()), None)


@pytest.mark.parametrize("name", PLATFORM_CONTRACTS)
def test_platform_artifacts_record_their_package_and_the_installed_sources(name: str):
    """Without Node: each platform artifact names its npm package and version, and every source file it was built
    from is byte-identical (sha256) to the one `make tools` installs, so a package bump shows up here."""
    package, version = PLATFORM_CONTRACTS[name]
    artifact = json.loads((TEST_ARTIFACTS / f"{name}.json").read_text())
    assert artifact["contract_name"] == name and artifact["packages"][package] == version
    assert artifact["source_path"].startswith(f"{package}/") and len(artifact["deployed_bytecode"]) > 2
    assert (len(artifact["deployed_bytecode"]) - 2) // 2 <= 24_576, "over EIP-170's code size limit: Base refuses it"
    for root in PACKAGE_ROOTS:
        require_tool(root, "the platform packages: make tools")
    for source_name, digest in artifact["sources"].items():
        installed = _installed(source_name)
        assert installed is not None, f"{source_name} is not installed"
        assert hashlib.sha256(installed.read_bytes()).hexdigest() == digest, source_name


@pytest.mark.slow
def test_committed_platform_artifacts_match_a_fresh_solc_js_compile():
    """contracts/compile_platforms.js --check compiles each platform contract again with its own solc-js version
    (23-45 s on the shared 2-core machine here: DropERC721 7-16 s, ERC721Drop 9 s, ERC721Creator 3-4 s) and
    compares byte for byte."""
    require_solc_js()
    require_tool(PACKAGE_ROOTS[1], "the Zora and Manifold packages: make tools")
    done = subprocess.run(["node", "compile_platforms.js", "--check"], cwd=CONTRACTS_DIR, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"stale platform artifacts, run `node contracts/compile_platforms.js`: {done}"
    states = dict(line.split(" ", 2)[1::-1] for line in done.stdout.splitlines())
    assert states == dict.fromkeys(PLATFORM_CONTRACTS, "fresh")
