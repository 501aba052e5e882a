"""collection.yaml errors name the YAML path and exit 2 before any work; the schema is published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.collection.config import load_collection, parse_collection
from mintprep.base.errors import ConfigError
from tests.conftest import EXAMPLE, write_collection

runner = CliRunner()


def run_cli(*args: str):
    return runner.invoke(app, list(args))


def test_example_collection_loads():
    col = load_collection(EXAMPLE)
    assert col.spec.size == 77
    assert col.spec.chain.mint_price == "0.00063"
    assert col.spec.chain.max_per_wallet == 5
    assert col.state_dir == EXAMPLE.parent / ".mintprep"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"generator__steps": 0}, "generator.steps: must be ≥ 1, got 0"),
        ({"generator__stepz": 3}, "generator.stepz: unknown key"),
        ({"size": "many"}, "size: "),
        ({"seed": -1}, "seed: must be ≥ 0, got -1"),
        ({"chain__mint_price": 0.00063}, "chain.mint_price: must be a decimal string"),
        ({"ipfs__backend": "dropbox"}, "ipfs.backend: must be one of"),
        ({"prompt__template": "a {colour} rose"}, "colour"),
        ({"prompt__template": "a {} rose"}, "prompt.template: placeholders are plain names"),
    ],
)
def test_bad_field_exits_2_naming_the_path(tmp_path: Path, changes: dict, expected: str):
    path = write_collection(tmp_path, **changes)
    result = run_cli("run", str(path))
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert not (tmp_path / ".mintprep").exists(), "bad input must be refused before any work"


def test_an_unset_pinning_token_is_refused_before_any_piece_is_generated(tmp_path: Path, monkeypatch):
    """The token variable is read from the environment, not the YAML: a run must check it before hours of sampling."""
    monkeypatch.delenv("MINTPREP_TEST_UNSET_TOKEN", raising=False)
    path = write_collection(tmp_path, size=1, generator__steps=2, ipfs={
        "backend": "psa", "api_url": "http://127.0.0.1:9", "token_env": "MINTPREP_TEST_UNSET_TOKEN"})
    result = run_cli("run", str(path))
    assert result.exit_code == 2, result.output
    assert "ipfs.token_env: environment variable MINTPREP_TEST_UNSET_TOKEN is not set" in result.output
    assert not (tmp_path / ".mintprep").exists(), "bad input must be refused before any work"


def test_malformed_yaml_exits_2_with_line(tmp_path: Path):
    path = tmp_path / "collection.yaml"
    path.write_text("name: x\nprompt: [unclosed\n")
    result = run_cli("run", str(path))
    assert result.exit_code == 2
    assert "not valid YAML" in result.output and "line" in result.output


def test_missing_file_exits_2(tmp_path: Path):
    result = run_cli("status", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert "nope.yaml: no such file" in result.output


def test_override_for_a_token_outside_the_collection_is_refused():
    text = EXAMPLE.read_text() + "\npieces:\n  99: {traits: {flower: tulip}}\n"
    with pytest.raises(ConfigError, match="pieces.99"):
        parse_collection(text)


def test_schema_lists_the_documented_keys():
    result = run_cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert {"name", "symbol", "size", "seed", "prompt", "generator", "ipfs", "chain", "page"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False


def test_published_schema_is_current():
    """docs/collection.schema.json is what editors load (see the first line of collection.yaml)."""
    published = json.loads((EXAMPLE.parents[1] / "docs" / "collection.schema.json").read_text())
    current = json.loads(run_cli("schema").stdout)
    assert published == current, "regenerate: mintprep schema > docs/collection.schema.json"
