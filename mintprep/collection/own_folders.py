"""The folders a collection file names for mintprep to replace whole, checked to be mintprep's own (without its
models: `status` checks them from what it kept of a validated file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mintprep.base import STATE_DIR_NAME, ConfigError, UserError, ensure_replaceable


def check_own_folders(path: Path, folders: Mapping[str, Path]) -> None:
    """Each of `folders` (setting name -> folder) is never the collection's folder (`path`'s) or an ancestor, never
    the state folder, never one holding files mintprep did not write: a ConfigError naming the setting otherwise."""
    for field, folder in folders.items():
        try:
            ensure_replaceable(folder, protect=(path.parent, path.parent / STATE_DIR_NAME))
        except UserError as exc:
            raise ConfigError(f"{path}: {field}: {exc}", path=str(path), field=field) from None
