"""What a request key says about the model and the machine, found without loading weights or importing torch.

- The model fingerprint is a hash of the model's files: every file of a diffusers folder (weights, configs,
  tokenizer), a single-file checkpoint and its configs, or, for a hub id, the snapshot's commit and the blob each
  file links to (the hub cache names blobs by their content hash). A file is hashed once and remembered by its
  identity (path, size, mtime_ns, ctime_ns, inode): a file whose identity is unchanged is not read again.
- The key environment (device type, torch's CPU thread count, versions that change numerics) is probed once with
  torch and remembered by the identity of the environment that decides it (interpreter, library versions, CPUs,
  GPU device nodes, the variables torch reads for threads and devices, host and boot). The executor checks it
  against the real one when it loads the model, before any piece is recorded.

The cache is kept in memory; it writes no file. Whoever makes it says where what it learns goes (`on_change`):
mintprep.state.fingerprints keeps it in the collection's `.mintprep/`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mintprep.generate.machine import environment_identity, numeric_versions
from mintprep.generate.settings import GeneratorSettings
from mintprep.generate.source import ModelSource, resolve_source
from mintprep.base import content_key, sha256_file

WEIGHT_SUFFIXES = {".safetensors", ".bin", ".ckpt"}
TINY_CODE = ("tiny.py", "tokenizer.py")  # the built-in model is code: its weights come from these files


class FingerprintCache:
    """File hashes by file identity, and probed environments by environment identity. `known` is what an earlier
    cache learnt (its `snapshot()`; anything malformed is ignored); `on_change(snapshot)` is told each time it
    learns something."""

    def __init__(self, known: object = None,
                 on_change: Callable[[dict[str, dict[str, Any]]], None] | None = None) -> None:
        self._on_change = on_change
        self._data: dict[str, dict[str, Any]] = {"files": {}, "environments": {}}
        if known is not None:
            try:
                self._data = {part: dict(known.get(part) or {}) for part in self._data}  # type: ignore[attr-defined]
            except (AttributeError, TypeError, ValueError):
                pass  # a cache is only a cache: start again

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return {part: dict(entries) for part, entries in self._data.items()}

    def file_sha256(self, file: Path) -> str:
        stat = file.stat()
        identity = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev]
        remembered = self._data["files"].get(str(file))
        if remembered is not None and remembered["identity"] == identity:
            return remembered["sha256"]
        sha256 = sha256_file(file)
        self._data["files"][str(file)] = {"identity": identity, "sha256": sha256}
        self._save()
        return sha256

    def environment(self, identity: dict[str, Any]) -> dict[str, Any] | None:
        return self._data["environments"].get(content_key(identity))

    def remember_environment(self, identity: dict[str, Any], facts: dict[str, Any]) -> None:
        self._data["environments"][content_key(identity)] = facts
        self._save()

    def _save(self) -> None:
        if self._on_change is not None:
            self._on_change(self.snapshot())


# -- the model -----------------------------------------------------------------------------------

def model_fingerprint(settings: GeneratorSettings, cache: FingerprintCache) -> str:
    """sha256 of what the model's files say; equal for equal files wherever they lie."""
    return content_key(describe_files(resolve_source(settings), settings, cache))


def describe_files(source: ModelSource, settings: GeneratorSettings, cache: FingerprintCache) -> dict[str, Any]:
    if source.kind == "tiny":
        here = Path(__file__).parent
        return {"kind": "tiny", "variant": settings.model or "default",
                "code": {name: cache.file_sha256(here / name) for name in TINY_CODE}}
    assert source.path is not None
    if source.kind == "single_file":
        assert source.config is not None
        return {"kind": "single_file", "sha256": cache.file_sha256(source.path),
                "config": describe_files(source.config, settings, cache)}
    if source.kind == "hub":
        # The snapshot is immutable: its files link to blobs named by their content hash.
        return {"kind": "hub", "repo_id": source.repo_id, "commit": source.commit,
                "files": {rel: _hub_blob(file, cache) for rel, file in _files(source.path)}}
    return {"kind": "folder", "files": {rel: cache.file_sha256(file) for rel, file in _files(source.path)}}


def weights_sha256(folder: Path, cache: FingerprintCache) -> dict[str, str]:
    """sha256 of each weight file of a diffusers folder (for provenance), from the cache."""
    return {rel: cache.file_sha256(file) for rel, file in _files(folder) if file.suffix in WEIGHT_SUFFIXES}


def _files(folder: Path) -> list[tuple[str, Path]]:
    return [(file.relative_to(folder).as_posix(), file) for file in sorted(folder.rglob("*"))
            if file.is_file() and not any(part.startswith(".") for part in file.relative_to(folder).parts)]


def _hub_blob(file: Path, cache: FingerprintCache) -> str:
    return Path(os.readlink(file)).name if file.is_symlink() else cache.file_sha256(file)


# -- the machine ---------------------------------------------------------------------------------

def key_environment(device: str, cache: FingerprintCache) -> dict[str, Any]:
    """{device, cpu_threads, versions} as a generator loaded here would see them."""
    if "torch" in sys.modules:  # already imported (and maybe reconfigured): ask it, it costs nothing
        return probe_environment(device)
    identity = environment_identity(device)
    remembered = cache.environment(identity)
    if remembered is None:
        remembered = probe_environment(device)
        cache.remember_environment(identity, remembered)
    return remembered


def probe_environment(device: str) -> dict[str, Any]:
    import torch

    from mintprep.generate.environment import resolve_device

    resolved = resolve_device(device).type
    # CPU kernels split their sums by thread count: 1 and 2 threads give different bytes for one piece.
    return {"device": resolved, "cpu_threads": torch.get_num_threads() if resolved == "cpu" else None,
            "versions": numeric_versions()}
