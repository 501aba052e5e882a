"""Loading the models a user has, offline: the built-in tiny model, a hub id from the local Hugging Face cache,
a local diffusers folder, or a single-file checkpoint. Nothing here downloads; a missing piece is a UserError that
says where mintprep looked and how to fetch it, never a traceback from inside the hub client."""

from __future__ import annotations

import json
from typing import Any

import diffusers
from diffusers.loaders.single_file_utils import SingleFileComponentError
from diffusers.utils import is_accelerate_available

from mintprep.base import ConfigError, UserError
from mintprep.generate.fingerprint import FingerprintCache, model_fingerprint, weights_sha256
from mintprep.generate.generator import LoadedModel
from mintprep.generate.settings import GeneratorSettings
from mintprep.generate.source import ModelSource, resolve_source
from mintprep.generate.tiny import WEIGHT_SEED, build_tiny_pipeline


def load_model(settings: GeneratorSettings, cache: FingerprintCache) -> LoadedModel:
    """The pipeline, where it came from, and the fingerprint of its files (hashed only when `cache` lacks them)."""
    source = resolve_source(settings)
    if source.kind == "tiny":
        variant = settings.model or "default"
        pipe, described = build_tiny_pipeline(variant), {"kind": "tiny", "variant": variant, "weight_seed": WEIGHT_SEED}
    elif source.kind == "single_file":
        pipe, described = _single_file(source, cache)
    else:
        pipe, described = _folder(source, cache)
    _apply_scheduler(pipe, settings)
    return LoadedModel(pipe, described, model_fingerprint(settings, cache))


def _folder(source: ModelSource, cache: FingerprintCache) -> tuple[Any, dict[str, Any]]:
    path = source.path
    assert path is not None
    try:
        pipe = diffusers.AutoPipelineForText2Image.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, EnvironmentError) as exc:
        raise UserError(f"generator.model: cannot load the pipeline in {path}: {_first_line(exc)}") from None
    if source.kind == "hub":
        described: dict[str, Any] = {"kind": "hub", "repo_id": source.repo_id, "revision": source.revision,
                                     "commit": source.commit}
    else:
        described = {"kind": "folder", "path": str(path), "weights_sha256": weights_sha256(path, cache)}
    return pipe, {**described, "class": json.loads((path / "model_index.json").read_text()).get("_class_name")}


def _single_file(source: ModelSource, cache: FingerprintCache) -> tuple[Any, dict[str, Any]]:
    path, config = source.path, source.config
    assert path is not None and config is not None and config.path is not None
    config_source = str(config.path)
    index = config.path / "model_index.json"
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
    return pipe, {"kind": "single_file", "path": str(path), "sha256": cache.file_sha256(path),
                  "config": config_source, "class": class_name}


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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
