"""The model fingerprint from files (no load) and the checks that keep its cache honest."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mintprep.executors import KeysOutdated, check_keys_hold
from mintprep.generate.fingerprint import model_fingerprint
from mintprep.generate.machine import environment_identity
from mintprep.state.fingerprints import fingerprint_cache
from mintprep.base.state_dir import StateDir
from mintprep.generate.settings import GeneratorSettings


def _folder(root: Path) -> Path:
    folder = root / "model"
    (folder / "unet").mkdir(parents=True)
    (folder / "model_index.json").write_text('{"_class_name": "StableDiffusionPipeline"}')
    (folder / "unet" / "diffusion_pytorch_model.safetensors").write_bytes(b"\0weights" * 1000)
    return folder


def test_the_fingerprint_follows_content_not_place_and_rehashes_only_a_changed_identity(tmp_path: Path,
                                                                                        monkeypatch) -> None:
    folder = _folder(tmp_path)
    settings = GeneratorSettings(kind="diffusers", model=str(folder))
    cache = fingerprint_cache(StateDir(tmp_path).fingerprints)
    first = model_fingerprint(settings, cache)

    hashed: list[Path] = []
    real_open = Path.open
    def watched_open(self: Path, *args, **kwargs):
        if folder in self.parents:
            hashed.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", watched_open)
    assert model_fingerprint(settings, fingerprint_cache(StateDir(tmp_path).fingerprints)) == first and hashed == []

    weights = folder / "unet" / "diffusion_pytorch_model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))
    assert model_fingerprint(settings, cache) == first and hashed == [weights]

    moved = shutil.copytree(folder, tmp_path / "elsewhere")
    assert model_fingerprint(GeneratorSettings(kind="diffusers", model=str(moved)), cache) == first
    weights.write_bytes(b"\1weights" * 1000)
    assert model_fingerprint(settings, cache) != first

    StateDir(tmp_path).fingerprints.write_text("{not json")
    assert model_fingerprint(settings, fingerprint_cache(StateDir(tmp_path).fingerprints))  # a broken cache is rebuilt


def test_keys_computed_for_another_machine_stop_the_run_and_correct_the_cache(tmp_path: Path) -> None:
    cache = fingerprint_cache(StateDir(tmp_path).fingerprints)
    settings = GeneratorSettings()
    remembered = {"device": "cpu", "cpu_threads": 99, "versions": {}}
    real = {"device": "cpu", "cpu_threads": 2, "versions": {}}
    check_keys_hold(("model", real), ("model", real), settings, cache)  # agreeing: nothing happens
    with pytest.raises(KeysOutdated, match="torch setup changed.*run again"):
        check_keys_hold(("model", remembered), ("model", real), settings, cache)
    assert fingerprint_cache(StateDir(tmp_path).fingerprints).environment(environment_identity(settings.device)) == real
