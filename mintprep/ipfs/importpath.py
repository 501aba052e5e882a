"""`ipfs add` of a path: files, directories (recursively), symlinks, with kubo's hidden-file rule."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mintprep.base import UserError
from mintprep.ipfs.unixfs import DagImport, Profile, import_directory, import_file, import_symlink


def import_path(path: str | Path, profile: Profile, *, hidden: bool = False, wrap: bool = False) -> DagImport:
    """What `ipfs add -r [-H] [-w] PATH` computes. Dotfiles inside directories are skipped unless
    `hidden`; symlinks are stored as UnixFS symlinks, not followed; empty directories are kept."""
    path = Path(path)
    dag = _import_entry(path, profile, hidden)
    if wrap:
        dag = import_directory({path.resolve().name: dag}, profile)
    return dag


def _import_entry(path: Path, profile: Profile, hidden: bool) -> DagImport:
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    if stat.S_ISLNK(mode):
        return import_symlink(os.readlink(path), profile)
    if stat.S_ISDIR(mode):
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            raise UserError(f"cannot list {path}: {exc.strerror}") from None
        entries = {
            name: _import_entry(path / name, profile, hidden) for name in names if hidden or not name.startswith(".")
        }
        return import_directory(entries, profile)
    if stat.S_ISREG(mode):
        return import_file(path, profile)
    raise UserError(f"{path} is not a regular file, directory or symlink")
