"""Single-file checkpoints, offline. The test writes the tiny model as an original-layout (LDM) `.safetensors`,
the format model sites distribute, and loads it the way a user would: `generator.kind: diffusers`,
`model: <file>.safetensors`, `config: <a folder holding only the diffusers configs>`, through diffusers'
`from_single_file` and its LDM -> diffusers key conversion."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from safetensors.torch import save_file

from mintprep.base.errors import UserError
from mintprep.generate import GeneratorSettings, load_generator
from mintprep.generate.tiny import build_tiny_pipeline
from tests.generate.conftest import request, settings
from tests.generate.ldm_keys import pipeline_to_ldm


@dataclass(frozen=True)
class TinyFiles:
    folder: Path  # save_pretrained: configs and weights
    configs: Path  # the same configs, no weights (what `hf download <base> --include '*.json' '*.txt'` gives)
    checkpoint: Path  # every weight, original key layout, one file


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory: pytest.TempPathFactory) -> TinyFiles:
    root = tmp_path_factory.mktemp("single-file")
    pipe = build_tiny_pipeline()
    files = TinyFiles(root / "folder", root / "configs", root / "tiny-sd.safetensors")
    pipe.save_pretrained(files.folder)
    shutil.copytree(files.folder, files.configs, ignore=shutil.ignore_patterns("*.safetensors", "*.bin"))
    save_file(pipeline_to_ldm(pipe), files.checkpoint)
    return files


def _single_file_settings(checkpoint: Path, configs: Path) -> GeneratorSettings:
    return settings(kind="diffusers", model=str(checkpoint), config=str(configs))


@pytest.mark.slow
def test_single_file_checkpoint_generates_the_folder_models_png(tiny_files: TinyFiles) -> None:
    assert not [p for p in tiny_files.configs.rglob("*") if p.suffix in {".safetensors", ".bin"}]
    file_settings = _single_file_settings(tiny_files.checkpoint, tiny_files.configs)
    from_file = load_generator(file_settings)
    from_folder = load_generator(settings(kind="diffusers", model=str(tiny_files.folder)))
    # The fingerprint hashes every loaded tensor: the conversion lost or changed nothing.
    assert from_file.fingerprint == from_folder.fingerprint
    result = from_file.generate(request(file_settings, 3))
    assert result.ok, [a.reason for a in result.attempts]
    assert result.png == from_folder.generate(request(from_folder.settings, 3)).png
    source = result.provenance["model"]
    assert source["kind"] == "single_file" and source["class"] == "StableDiffusionPipeline"
    assert source["sha256"] == hashlib.sha256(tiny_files.checkpoint.read_bytes()).hexdigest()
    assert source["config"] == str(tiny_files.configs.resolve())


@pytest.mark.slow
def test_weights_come_from_the_checkpoint_not_the_configs(tiny_files: TinyFiles, tmp_path: Path) -> None:
    """The same configs with the `constant-decoder` weights: every image is flat, so the file was read."""
    flat = tmp_path / "flat.safetensors"
    save_file(pipeline_to_ldm(build_tiny_pipeline("constant-decoder")), flat)
    gen = load_generator(_single_file_settings(flat, tiny_files.configs))
    result = gen.generate(request(gen.settings, 3))
    assert result.png is None
    assert [a.guard for a in result.attempts] == ["flat"] * gen.settings.max_attempts


def test_checkpoint_missing_one_weight_is_refused_not_filled_with_random_values(tiny_files: TinyFiles,
                                                                                tmp_path: Path) -> None:
    checkpoint = pipeline_to_ldm(build_tiny_pipeline())
    del checkpoint["first_stage_model.decoder.conv_out.weight"]
    partial = tmp_path / "partial.safetensors"
    save_file(checkpoint, partial)
    with pytest.raises(UserError, match=f"{partial}.*lacks weights.*{tiny_files.configs.name}"):
        load_generator(_single_file_settings(partial, tiny_files.configs))


def test_checkpoint_without_a_component_names_it(tiny_files: TinyFiles, tmp_path: Path) -> None:
    checkpoint = {key: value for key, value in pipeline_to_ldm(build_tiny_pipeline()).items()
                  if not key.startswith("cond_stage_model.")}
    no_text_encoder = tmp_path / "unet-and-vae.safetensors"
    save_file(checkpoint, no_text_encoder)
    with pytest.raises(UserError, match="does not match the configs.*CLIPTextModel"):
        load_generator(_single_file_settings(no_text_encoder, tiny_files.configs))


def test_a_file_that_is_not_a_checkpoint_is_a_user_error(tiny_files: TinyFiles, tmp_path: Path) -> None:
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"<html>404 not found</html>")
    with pytest.raises(UserError, match=f"cannot load {junk}"):
        load_generator(_single_file_settings(junk, tiny_files.configs))



def test_without_accelerate_single_file_loading_is_refused(tiny_files: TinyFiles,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Without accelerate, diffusers would keep random values for any weight the file lacks; mintprep refuses."""
    import mintprep.generate.loading as loading

    monkeypatch.setattr(loading, "is_accelerate_available", lambda: False)
    with pytest.raises(UserError, match="needs the accelerate package"):
        load_generator(_single_file_settings(tiny_files.checkpoint, tiny_files.configs))
