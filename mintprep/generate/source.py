"""Where a generator's weights come from, found without importing torch or diffusers.

Loading (mintprep.generate.loading) and fingerprinting (mintprep.generate.fingerprint) both start here, so a
missing model is the same UserError whether a run only computes keys or actually loads the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mintprep.base import ConfigError, UserError
from mintprep.generate.settings import GeneratorSettings

SINGLE_FILE_SUFFIXES = (".safetensors", ".ckpt")


@dataclass(frozen=True)
class ModelSource:
    kind: Literal["tiny", "folder", "hub", "single_file"]
    path: Path | None = None  # the folder (a hub snapshot folder for a hub id) or the checkpoint file
    repo_id: str | None = None
    revision: str | None = None
    config: ModelSource | None = None  # single file: where its configs are

    @property
    def commit(self) -> str | None:
        """A hub snapshot folder is named by the commit sha: the exact revision, whatever branch or tag was asked."""
        return self.path.name if self.kind == "hub" and self.path else None


def resolve_source(settings: GeneratorSettings) -> ModelSource:
    if settings.kind == "tiny":
        return ModelSource("tiny")
    if not settings.model:
        raise ConfigError("generator.model: required when generator.kind is diffusers (a hub id, a local diffusers "
                          "folder or a .safetensors file)")
    path = Path(settings.model).expanduser()
    if path.suffix.lower() in SINGLE_FILE_SUFFIXES:
        return _single_file(path, settings)
    if path.is_dir():
        return ModelSource("folder", _pipeline_folder(path.resolve()))
    if path.is_absolute() or settings.model.startswith((".", "~")) or settings.model.count("/") > 1:
        raise UserError(f"generator.model: {settings.model}: no such folder or file")
    return _hub(settings.model, settings.revision)


def _single_file(path: Path, settings: GeneratorSettings) -> ModelSource:
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
        config = ModelSource("folder", config_dir.resolve())
    else:
        config = ModelSource("hub", _hub_snapshot(settings.config, settings.revision, configs_only=True),
                             settings.config, settings.revision)
    return ModelSource("single_file", path.resolve(), config=config)


def _hub(repo_id: str, revision: str | None) -> ModelSource:
    return ModelSource("hub", _pipeline_folder(_hub_snapshot(repo_id, revision, configs_only=False)), repo_id,
                       revision)


def _pipeline_folder(path: Path) -> Path:
    if not (path / "model_index.json").is_file():
        raise UserError(f"generator.model: {path} has no model_index.json, so it is not a diffusers pipeline folder "
                        "(save one with pipe.save_pretrained(folder), or point at a .safetensors file)")
    return path


def _hub_snapshot(repo_id: str, revision: str | None, *, configs_only: bool) -> Path:
    import huggingface_hub  # only a hub id pays for the hub client
    from huggingface_hub import constants as hub_constants

    try:
        return Path(huggingface_hub.snapshot_download(repo_id, revision=revision, local_files_only=True))
    except Exception as exc:  # the hub client raises many kinds here; all mean "not in the local cache"
        where = hub_constants.HF_HUB_CACHE
        if configs_only:
            raise UserError(f"generator.config: {repo_id} is neither a folder nor in the local Hugging Face cache "
                            f"({where}); fetch its configs with `hf download {repo_id} "
                            f"--include '*.json' '*.txt'` [{type(exc).__name__}]") from None
        at = f" at revision {revision}" if revision else ""
        raise UserError(
            f"generator.model: {repo_id}{at} is not in the local Hugging Face cache ({where}; set HF_HOME or "
            f"HF_HUB_CACHE to look elsewhere). mintprep never downloads during a run: fetch it first with "
            f"`hf download {repo_id}" + (f" --revision {revision}" if revision else "") + "` "
            f"(or give generator.model a local folder or .safetensors file). [{type(exc).__name__}]"
        ) from None
