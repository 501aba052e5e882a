"""Commands that touch neither chain nor model import neither web3/eth_account nor torch/diffusers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mintprep.ipfs.profile_names import PROFILE_NAMES
from mintprep.ipfs.unixfs import PROFILES
from tests.conftest import write_collection

HEAVY = {"web3", "eth_account", "eth_keyfile", "torch", "diffusers", "transformers"}
RUN_COMMANDS = """
import json, sys
from typer.testing import CliRunner
import mintprep.cli
codes = [CliRunner().invoke(mintprep.cli.app, args).exit_code for args in json.loads(sys.argv[1])]
print(json.dumps({"codes": codes, "imported": sorted({m.split(".")[0] for m in sys.modules}),
                  "mintprep": sorted(m for m in sys.modules if m.startswith("mintprep."))}))
"""


def _imported_after(*commands: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN_COMMANDS, json.dumps(commands)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_help_status_cid_and_validate_import_no_chain_or_model_library(tmp_path: Path) -> None:
    from PIL import Image

    collection = write_collection(tmp_path / "c", size=3)
    image = tmp_path / "piece.png"
    Image.new("RGB", (64, 64), (200, 40, 40)).save(image)
    outcome = _imported_after(["--help"], ["status", str(collection), "--json"], ["cid", str(image)],
                              ["validate", str(image), "--json"], ["schema"])
    assert outcome["codes"] == [0, 0, 0, 1, 0]  # a flat red square is rightly rejected by `validate`
    assert HEAVY & set(outcome["imported"]) == set()
    assert "typer" in outcome["imported"]  # the commands did run in this interpreter


def test_status_imports_only_what_it_needs(tmp_path: Path) -> None:
    """`status` reads the collection file and the ledger: no pixel (numpy, PIL), contract (eth_utils, eth_abi) or
    page-building code, each of which costs a start tenths of a second."""
    collection = write_collection(tmp_path / "c", size=3, chain__contract="0x5fbdb2315678afecb367f032d93f642f64180aa3")
    outcome = _imported_after(["status", str(collection), "--json"], ["status", str(collection)])
    assert outcome["codes"] == [0, 0]
    assert (HEAVY | {"numpy", "PIL", "eth_utils", "eth_abi", "parsimonious"}) & set(outcome["imported"]) == set()
    assert "pydantic" in outcome["imported"] and "yaml" in outcome["imported"]  # the file was read and checked
    # Nor mintprep's own content addressing or pixel code (asking whether a drop is withheld needs no CID).
    assert {"mintprep.ipfs.cid", "mintprep.ipfs.dagpb", "mintprep.ipfs.unixfs", "mintprep.guards.image_guards",
            "mintprep.stages.screen"} & set(outcome["mintprep"]) == set()


def test_the_cli_profile_names_are_the_profiles() -> None:
    assert PROFILE_NAMES == tuple(PROFILES)


def test_export_of_a_judged_collection_loads_no_pixel_or_http_code(collection: Path, tmp_path: Path) -> None:
    """Every image was judged when it was made: export reads the verdicts and imports neither numpy nor PIL; its
    pieces are in the local store, so neither an HTTP client (requests, urllib3: a sixth of its start) nor a
    remote backend."""
    outcome = _imported_after(["export", str(collection), "-o", str(tmp_path / "out"), "--json"])
    assert outcome["codes"] == [0]
    assert {"numpy", "PIL", "requests", "urllib3"} & set(outcome["imported"]) == set()
    assert {"mintprep.ipfs.backends.http", "mintprep.ipfs.gateway", "mintprep.net.http"} & set(outcome["mintprep"]) == set()
