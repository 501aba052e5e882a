"""The diffusers backend, offline: a saved diffusers folder loads and generates; missing weights are clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from mintprep.base.errors import ConfigError, UserError
from mintprep.generate import Generator, load_generator
from mintprep.generate.tiny import build_tiny_pipeline
from tests.generate.conftest import request, settings


@pytest.mark.slow
def test_saved_folder_loads_and_generates_the_same_image_as_the_tiny_model(tmp_path: Path, tiny: Generator) -> None:
    folder = tmp_path / "tiny-sd"
    build_tiny_pipeline().save_pretrained(folder)
    folder_settings = settings(kind="diffusers", model=str(folder))
    gen = load_generator(folder_settings)
    result = gen.generate(request(folder_settings, 3))
    assert result.png == tiny.generate(request(tiny.settings, 3)).png
    source = result.provenance["model"]
    assert source["kind"] == "folder" and source["class"] == "StableDiffusionPipeline"
    assert set(source["weights_sha256"]) >= {"unet/diffusion_pytorch_model.safetensors"}


def test_scheduler_choice_is_applied_and_recorded(tmp_path: Path) -> None:
    chosen = settings(scheduler="EulerDiscreteScheduler", scheduler_config={"timestep_spacing": "trailing"})
    gen = load_generator(chosen)
    result = gen.generate(request(chosen, 2))
    assert result.provenance["scheduler"]["class"] == "EulerDiscreteScheduler"
    assert result.provenance["scheduler"]["config"]["timestep_spacing"] == "trailing"


def test_hub_id_missing_from_cache_says_where_it_looked_and_how_to_fetch() -> None:
    with pytest.raises(UserError) as error:
        load_generator(settings(kind="diffusers", model="mintprep-tests/not-a-cached-model"))
    message = str(error.value)
    assert "not in the local Hugging Face cache" in message
    assert "hf download mintprep-tests/not-a-cached-model" in message
    assert "huggingface" in message  # the cache path


def test_folder_without_model_index_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=f"{tmp_path}.*model_index.json"):
        load_generator(settings(kind="diffusers", model=str(tmp_path)))


def test_single_file_needs_a_local_config(tmp_path: Path) -> None:
    checkpoint = tmp_path / "model.safetensors"
    checkpoint.write_bytes(b"")
    with pytest.raises(ConfigError, match="generator.config"):
        load_generator(settings(kind="diffusers", model=str(checkpoint)))
    with pytest.raises(UserError, match="no such checkpoint"):
        load_generator(settings(kind="diffusers", model=str(tmp_path / "absent.safetensors"), config=str(tmp_path)))


def test_unknown_tiny_variant_and_scheduler_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="generator.model"):
        load_generator(settings(model="huge"))
    with pytest.raises(ValidationError, match="NoSuchScheduler"):  # refused with the config, before any work
        settings(scheduler="NoSuchScheduler")


@pytest.mark.slow
def test_run_end_to_end_on_a_saved_diffusers_folder(tmp_path: Path) -> None:
    """`mintprep run` with generator.kind: diffusers pointed at a folder written by save_pretrained."""
    from mintprep.collection.config import load_collection
    from mintprep.commands import run_collection
    from tests.conftest import write_collection

    folder = tmp_path / "tiny-sd"
    build_tiny_pipeline().save_pretrained(folder)
    path = write_collection(tmp_path / "c", size=3, generator={
        "kind": "diffusers", "model": str(folder), "steps": 3, "width": 64, "height": 64, "upscale": 4,
        "precision": "fp32", "fallback": [], "device": "cpu"})
    report = run_collection(load_collection(path))
    assert report.exit_code == 0 and report.pinned == 3, report.rejected
    tokens = load_collection(path)
    from mintprep.state.ledger import Ledger

    with Ledger.open(tokens.state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest().manifest.to_json()
    assert [t["provenance"]["model"]["kind"] for t in manifest["tokens"]] == ["folder"] * 3
