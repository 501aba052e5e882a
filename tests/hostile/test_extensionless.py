"""Item 5 of issue 31: a collection whose metadata files have no extension (an `ipfs://` root of files "1", "2",
"3", as ERC721A's default tokenURI serves them) is exported, audited and proven under the names it serves.
Its blocks come from the trustless gateway stand-in of tests/hostile/dags.py on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mintprep.cli import app
from tests.conftest import write_collection
from tests.hostile import dags


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_an_extensionless_root_is_exported_and_audited_under_its_own_names(tmp_path: Path):
    blocks: dags.Blocks = {}
    files = {name.removesuffix(".json"): cid for name, cid in dags.honest_files(blocks).items()}
    root = dags.metadata_root(blocks, files)
    path = write_collection(tmp_path / "col", size=3, generator__upscale=1)
    with dags.block_gateway(blocks) as gateway:
        code, imported = cli("import", str(path), "--from", f"ipfs://{root}", "--gateway", gateway)
    assert code == 0 and len(imported["imported"]) == 3, imported
    code, exported = cli("export", str(path), "-o", str(tmp_path / "out"))
    assert code == 0, exported  # it was exit 2: "cannot be read whole ... ('1.json')"
    assert sorted(p.name for p in (tmp_path / "out" / "json").iterdir()) == ["1.json", "2.json", "3.json",
                                                                              "_metadata.json"]
    code, audit = cli("audit", str(path))
    assert code == 0 and audit["ok"], audit["problems"]  # it called every token metadata-unretrievable ("1.json absent")
    code, proven = cli("provenance", str(path))
    assert code == 0, proven
