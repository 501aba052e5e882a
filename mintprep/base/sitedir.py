"""A site folder on disk: read it, and replace it whole so no reader ever sees half a page."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path
from typing import Mapping

from mintprep.base.errors import UserError
from mintprep.base.durable_files import fsync_dir

# Every page mintprep writes carries this element; a folder whose index.html lacks it is not ours to replace.
CONFIG_ELEMENT_ID = "mintprep-config"
MARKER = f'id="{CONFIG_ELEMENT_ID}"'.encode()


def read_tree(root: Path) -> dict[str, bytes]:
    """Every regular file under `root`, keyed by its POSIX path relative to `root`."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def ensure_replaceable(dest: Path, *, protect: tuple[Path, ...] = ()) -> None:
    """Refuse to replace a folder mintprep did not write, or one holding something we must keep."""
    dest = dest.resolve()
    for kept in protect:
        kept = kept.resolve()
        if dest == kept or dest in kept.parents:
            raise UserError(f"{dest}: refusing to replace this folder, it contains {kept}; choose a separate folder")
    if dest.exists() and not dest.is_dir():
        raise UserError(f"{dest}: exists and is not a folder; choose a folder for the site")
    if dest.is_dir() and any(dest.iterdir()):
        index = dest / "index.html"
        if not (index.is_file() and MARKER in index.read_bytes()):
            raise UserError(
                f"{dest}: holds files mintprep did not write (no mintprep index.html); choose an empty or new folder"
            )


def replace_tree(files: Mapping[str, bytes], dest: Path) -> bool:
    """Make `dest` hold exactly `files`; return False when it already did (nothing written).

    The new tree is written in a sibling temp folder and made durable by one sync, then swapped in by two
    renames: a crash leaves either the old complete site or the new complete one at `dest` (or, between the
    renames, no folder at all, which the next build recreates), never a mix. One `os.sync` rather than an fsync
    per file (as base.durable_files.write_durably): a 100,000-address allowlist's 69,889 files took 138 s with one each.
    """
    if dest.is_dir() and read_tree(dest) == dict(files):
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(dest)
    tag = secrets.token_hex(4)
    staging = dest.with_name(f".{dest.name}.new-{tag}")
    retired = dest.with_name(f".{dest.name}.old-{tag}")
    try:
        for rel, data in sorted(files.items()):
            _write_file(staging / rel, data)
        os.sync()  # every file and folder of the new tree, before it takes the site's name
        if dest.exists():
            os.rename(dest, retired)
        os.rename(staging, dest)
        fsync_dir(dest.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(retired, ignore_errors=True)
    return True


def _remove_leftovers(dest: Path) -> None:
    """Temp folders a crashed earlier build left beside `dest`."""
    for pattern in (f".{dest.name}.new-*", f".{dest.name}.old-*"):
        for stale in dest.parent.glob(pattern):
            shutil.rmtree(stale, ignore_errors=True)


def _write_file(path: Path, data: bytes) -> None:
    if ".." in Path(path).parts:
        raise ValueError(f"site path escapes its folder: {path}")
    try:
        handle = open(path, "wb")
    except FileNotFoundError:  # a new folder (made only then: a mkdir per file cost as much as the write)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "wb")
    with handle:
        handle.write(data)
