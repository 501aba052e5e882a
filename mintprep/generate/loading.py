"""Loading the models a user has, offline: the built-in tiny model, a hub id from the local Hugging Face cache,
a local diffusers folder, or a single-file checkpoint. Nothing here downloads; a missing piece is a UserError that
says where mintprep looked and how to fetch it, never a traceback from inside the hub client."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import diffusers
import huggingface_hub
from diffusers.loaders.single_file_utils import SingleFileComponentError
from diffusers.utils import is_accelerate_available
from huggingface_hub import constants as hub_constants

from mintprep.errors import ConfigError, UserError
from mintprep.generate.generator import LoadedModel
from mintprep.generate.settings import GeneratorSettings
from mintprep.generate.tiny import WEIGHT_SEED, build_tiny_pipeline

SINGLE_FILE_SUFFIXES = (".safetensors", ".ckpt")
CHUNK = 1 << 20


def load_model(settings: GeneratorSettings) -> LoadedModel:
    model = _tiny(settings) if settings.kind == "tiny" else _diffusers(settings)
    _apply_scheduler(model.pipe, settings)
    return model


def _tiny(settings: GeneratorSettings) -> LoadedModel:
    variant = settings.model or "default"
    return LoadedModel(build_tiny_pipeline(variant), {"kind": "tiny", "variant": variant, "weight_seed": WEIGHT_SEED})


def _diffusers(settings: GeneratorSettings) -> LoadedModel:
    if not settings.model:
        raise ConfigError("generator.model: required when generator.kind is diffusers (a hub id, a local diffusers "
                          "folder or a .safetensors file)")
    path = Path(settings.model).expanduser()
    if path.suffix.lower() in SINGLE_FILE_SUFFIXES:
        return _single_file(path, settings)
    if path.is_dir():
        return _folder(path, {"kind": "folder", "path": str(path.resolve()), "weights_sha256": _weights_sha256(path)})
    if path.is_absolute() or settings.model.startswith((".", "~")) or settings.model.count("/") > 1:
        raise UserError(f"generator.model: {settings.model}: no such folder or file")
    return _hub(settings.model, settings.revision)


def _folder(path: Path, source: dict[str, Any]) -> LoadedModel:
    index = path / "model_index.json"
    if not index.is_file():
        raise UserError(f"generator.model: {path} has no model_index.json, so it is not a diffusers pipeline folder "
                        "(save one with pipe.save_pretrained(folder), or point at a .safetensors file)")
    try:
        pipe = diffusers.AutoPipelineForText2Image.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, EnvironmentError) as exc:
        raise UserError(f"generator.model: cannot load the pipeline in {path}: {_first_line(exc)}") from None
    return LoadedModel(pipe, {**source, "class": json.loads(index.read_text()).get("_class_name")})


def _hub(repo_id: str, revision: str | None) -> LoadedModel:
    try:
        snapshot = Path(huggingface_hub.snapshot_download(repo_id, revision=revision, local_files_only=True))
    except Exception as exc:  # the hub client raises many kinds here; all mean "not in the local cache"
        where = hub_constants.HF_HUB_CACHE
        at = f" at revision {revision}" if revision else ""
        raise UserError(
            f"generator.model: {repo_id}{at} is not in the local Hugging Face cache ({where}; set HF_HOME or "
            f"HF_HUB_CACHE to look elsewhere). mintprep never downloads during a run: fetch it first with "
            f"`hf download {repo_id}" + (f" --revision {revision}" if revision else "") + "` "
            f"(or give generator.model a local folder or .safetensors file). [{type(exc).__name__}]"
        ) from None
    # The snapshot folder is named by the commit sha: the exact revision, whatever branch or tag was asked for.
    return _folder(snapshot, {"kind": "hub", "repo_id": repo_id, "revision": revision, "commit": snapshot.name})


def _single_file(path: Path, settings: GeneratorSettings) -> LoadedModel:
    if not path.is_file():
        raise UserError(f"generator.model: {path}: no such checkpoint file")
    if not settings.config:
        raise ConfigError(
            f"generator.config: required for the single-file checkpoint {path.name}: a local diffusers folder (or a "
            "hub id already in the local cache) with the configs of the matching base model, e.g. one saved with "
            "pipe.save_pretrained(folder) or fetched with `hf download <base repo> --include '*.json' '*.txt'`; "
            "mintprep will not fetch configs during a run"
        )
    config_dir = Path(settings.config).expanduser()
    if config_dir.is_dir():
        config_source = str(config_dir.resolve())
    else:
        config_source = _hub_only_configs(settings.config, settings.revision)
    index = Path(config_source) / "model_index.json"
    if not index.is_file():
        raise UserError(f"generator.config: {config_source} has no model_index.json (needs a diffusers folder)")
    class_name = json.loads(index.read_text())["_class_name"]
    pipeline_class = getattr(diffusers, class_name, None)
    if pipeline_class is None or not hasattr(pipeline_class, "from_single_file"):
        raise UserError(f"generator.config: {class_name} (from {index}) cannot load single-file checkpoints")
    if not is_accelerate_available():
        # Without accelerate, diffusers builds each component with random weights and loads the checkpoint over
        # them with strict=False: a tensor the file lacks silently stays random. With it, such a tensor stays
        # empty (on the meta device) and the load fails.
        raise UserError(f"generator.model: loading the single-file checkpoint {path.name} needs the accelerate "
                        "package (pip install accelerate), so that weights missing from the file are an error "
                        "rather than random values")
    try:
        pipe = pipeline_class.from_single_file(str(path), config=config_source, local_files_only=True)
    except SingleFileComponentError as exc:
        raise UserError(f"generator.model: {path} does not match the configs in {config_source}: "
                        f"{_first_line(exc)}") from None
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        if "meta tensor" in str(exc):
            raise UserError(f"generator.model: {path} lacks weights that the configs in {config_source} call "
                            "for: is it a checkpoint of that base model?") from None
        raise UserError(f"generator.model: cannot load {path} with the configs in {config_source}: "
                        f"{_first_line(exc)}") from None
    return LoadedModel(pipe, {"kind": "single_file", "path": str(path.resolve()), "sha256": _file_sha256(path),
                              "config": config_source, "class": class_name})


def _hub_only_configs(repo_id: str, revision: str | None) -> str:
    try:
        return huggingface_hub.snapshot_download(repo_id, revision=revision, local_files_only=True)
    except Exception as exc:
        raise UserError(f"generator.config: {repo_id} is neither a folder nor in the local Hugging Face cache "
                        f"({hub_constants.HF_HUB_CACHE}); fetch its configs with `hf download {repo_id} "
                        f"--include '*.json' '*.txt'` [{type(exc).__name__}]") from None


def _apply_scheduler(pipe: Any, settings: GeneratorSettings) -> None:
    if settings.scheduler is None and not settings.scheduler_config:
        return
    name = settings.scheduler or type(pipe.scheduler).__name__
    scheduler_class = getattr(diffusers, name, None)
    if scheduler_class is None or not hasattr(scheduler_class, "from_config"):
        raise ConfigError(f"generator.scheduler: {name!r} is not a diffusers scheduler class")
    try:
        pipe.scheduler = scheduler_class.from_config(pipe.scheduler.config, **settings.scheduler_config)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"generator.scheduler_config: {_first_line(exc)}") from None


def _weights_sha256(folder: Path) -> dict[str, str]:
    return {str(file.relative_to(folder)): _file_sha256(file)
            for file in sorted(folder.rglob("*")) if file.suffix in {".safetensors", ".bin", ".ckpt"}}


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
