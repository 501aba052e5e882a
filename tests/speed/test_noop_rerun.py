"""A rerun with nothing to do loads nothing: no weight file opened, neither torch nor diffusers imported.

Each run is a fresh interpreter (as `mintprep run` is), with an audit hook that records every file it opens; the
hook sees Python-level opens, and a process that never imports torch, diffusers or safetensors has no other way to
read a weight file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_collection

RUN_WATCHED = """
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
report = run_collection(load_collection(sys.argv[1]))
print(json.dumps({"generated": report.generated, "pinned": report.pinned, "exit_code": report.exit_code,
                  "opened": opened, "imported": sorted({m.split(".")[0] for m in sys.modules})}))
"""
WEIGHTS = (".safetensors", ".bin", ".ckpt")


def _run(collection: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN_WATCHED, str(collection)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def _weights_opened(report: dict, folder: Path) -> list[str]:
    return sorted(p for p in report["opened"] if p.startswith(str(folder)) and p.endswith(WEIGHTS))


@pytest.fixture(scope="module")
def folder_collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from mintprep.generate.tiny import build_tiny_pipeline

    root = tmp_path_factory.mktemp("noop")
    folder = root / "tiny-sd"
    build_tiny_pipeline().save_pretrained(folder)
    collection = write_collection(root / "c", size=2, generator={
        "kind": "diffusers", "model": str(folder), "steps": 2, "width": 64, "height": 64, "upscale": 1,
        "precision": "fp32", "fallback": [], "device": "cpu"})
    first = _run(collection)
    assert (first["generated"], first["pinned"], first["exit_code"]) == (2, 2, 0)
    assert _weights_opened(first, folder), "the first run must hash the weights (else the hook sees nothing)"
    return folder, collection


@pytest.mark.slow
def test_a_noop_rerun_opens_no_weight_file_and_imports_no_torch(folder_collection: tuple[Path, Path]) -> None:
    folder, collection = folder_collection
    again = _run(collection)
    assert (again["generated"], again["pinned"], again["exit_code"]) == (0, 0, 0)
    assert _weights_opened(again, folder) == []
    assert not {"torch", "diffusers", "safetensors", "transformers"} & set(again["imported"])
    assert not {"web3", "eth_account"} & set(again["imported"]), "no contract: the chain gate needs no web3"


@pytest.mark.slow
def test_a_touched_weight_file_is_hashed_again_and_nothing_regenerates(folder_collection: tuple[Path, Path]) -> None:
    folder, collection = folder_collection
    weight = folder / "unet" / "diffusion_pytorch_model.safetensors"
    stat = weight.stat()
    os.utime(weight, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    again = _run(collection)
    assert _weights_opened(again, folder) == [str(weight)]  # re-fingerprinted: that file, and only it
    assert (again["generated"], again["pinned"], again["exit_code"]) == (0, 0, 0)
    assert not {"torch", "diffusers"} & set(again["imported"])
