"""The compiled MintprepDrop contract, committed beside the package so deploying needs no Node.

`contracts/compile.js` writes the artifact; `build_artifacts` reruns it (Node and `npm ci --prefix contracts`
needed), or with `check=True` says which committed artifacts differ from a fresh compile.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eth_utils import function_signature_to_4byte_selector

from mintprep.base import UserError

ARTIFACTS_DIR = Path(__file__).parent / "artifacts"
# The sources live in the repository, not in the installed package: building is a developer task.
CONTRACTS_DIR = Path(__file__).resolve().parents[2] / "contracts"


@dataclass(frozen=True)
class Artifact:
    contract_name: str
    abi: list[dict[str, Any]]
    bytecode: str
    deployed_bytecode: str
    compiler: str
    settings: dict[str, Any]
    source_sha256: str
    sources: dict[str, str]
    immutable_references: tuple[dict[str, int], ...] = ()  # [{start, length}] in deployed_bytecode

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Artifact:
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        fields["immutable_references"] = tuple(data.get("immutable_references", ()))
        return cls(**fields)

    @functools.cached_property
    def errors_by_selector(self) -> dict[bytes, dict[str, Any]]:
        """ABI `error` entries keyed by their 4-byte selector, to decode custom-error reverts."""
        return {
            function_signature_to_4byte_selector(_signature(entry)): entry
            for entry in self.abi
            if entry["type"] == "error"
        }


def _signature(entry: dict[str, Any]) -> str:
    return f"{entry['name']}({','.join(i['type'] for i in entry['inputs'])})"


def load_artifact(name: str = "MintprepDrop", directory: Path = ARTIFACTS_DIR) -> Artifact:
    path = directory / f"{name}.json"
    try:
        return Artifact.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        raise UserError(f"contract artifact {path} is missing; run `mintprep contract build`") from None


@dataclass(frozen=True)
class BuiltArtifact:
    contract_name: str
    path: Path
    fresh: bool  # in check mode: does the committed file equal a fresh compile?


def build_artifacts(check: bool = False, contracts_dir: Path = CONTRACTS_DIR) -> list[BuiltArtifact]:
    """Compile every contract with solc-js and write the committed artifacts (or, with `check`, only compare)."""
    node = shutil.which("node")
    if node is None:
        raise UserError("`node` was not found on PATH; building the contract needs Node.js 18+")
    if not (contracts_dir / "compile.js").is_file():
        raise UserError(f"{contracts_dir}/compile.js not found; building needs the mintprep source tree")
    if not (contracts_dir / "node_modules" / "solc").is_dir():
        raise UserError(f"{contracts_dir}/node_modules is missing; run `npm ci --prefix {contracts_dir}`")
    command = [node, "compile.js"] + (["--check"] if check else [])
    done = subprocess.run(command, cwd=contracts_dir, capture_output=True, text=True)
    if done.returncode not in ((0, 1) if check else (0,)):
        raise UserError(f"solc-js failed to compile the contracts in {contracts_dir}:\n{done.stderr.strip()}")
    return [_built(line) for line in done.stdout.splitlines()]


def _built(line: str) -> BuiltArtifact:
    # compile.js prints one "<fresh|STALE|wrote> <Contract> <path>" line per artifact.
    state, name, path = line.split(" ", 2)
    return BuiltArtifact(contract_name=name, path=Path(path), fresh=state != "STALE")
