"""`FolderFiles`: an import's thousands of files read from a stranger's folder with the guarantees of
`read_regular_file(path, within=folder)` (real files on disk, real symlinks, a real FIFO), each directory resolved
once: a file or a directory that leads outside is refused, a FIFO does not block, an oversized file is not read,
and a directory swapped for a symlink after it was opened does not lead the reader outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mintprep.base.errors import UserError
from mintprep.base.untrusted_files import FolderFiles


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.png").write_bytes(b"outside bytes")
    inside = tmp_path / "export"
    (inside / "images").mkdir(parents=True)
    (inside / "images" / "1.png").write_bytes(b"image one")
    (inside / "json").mkdir()
    (inside / "json" / "1.json").write_bytes(b"{}")
    return inside


def test_files_inside_are_read_and_a_missing_one_is_none(folder: Path):
    with FolderFiles(folder) as files:
        assert files.read(folder / "images" / "1.png") == b"image one"
        assert files.read(f"{folder}/json/1.json", what="metadata file") == b"{}"
        assert files.read(folder / "images" / "2.png") is None
        assert files.read(folder / "nowhere" / "1.png") is None


def test_a_symlink_is_followed_inside_and_refused_outside(folder: Path):
    (folder / "images" / "alias.png").symlink_to(folder / "images" / "1.png")
    (folder / "images" / "leak.png").symlink_to(folder.parent / "outside" / "secret.png")
    (folder / "linked").symlink_to(folder.parent / "outside", target_is_directory=True)
    with FolderFiles(folder) as files:
        assert files.read(folder / "images" / "alias.png") == b"image one"
        with pytest.raises(UserError, match="leads outside"):
            files.read(folder / "images" / "leak.png")
        with pytest.raises(UserError, match="leads outside"):
            files.read(folder / "linked" / "secret.png")
        with pytest.raises(UserError, match="leads outside"):
            files.read(f"{folder}/images/../../outside/secret.png")


def test_a_fifo_a_folder_and_an_oversized_file_are_refused_without_reading(folder: Path):
    os.mkfifo(folder / "images" / "pipe.png")  # opening it for reading would wait for a writer forever
    (folder / "images" / "dir.png").mkdir()
    with (folder / "images" / "huge.png").open("wb") as sparse:
        sparse.truncate(1 << 30)
    with FolderFiles(folder) as files:
        with pytest.raises(UserError, match="not a regular file"):
            files.read(folder / "images" / "pipe.png")
        with pytest.raises(UserError, match="a folder"):
            files.read(folder / "images" / "dir.png")
        with pytest.raises(UserError, match="more than the 1024"):
            files.read(folder / "images" / "huge.png", 1024)


def test_a_directory_swapped_for_a_symlink_meanwhile_does_not_lead_outside(folder: Path):
    with FolderFiles(folder) as files:
        assert files.read(folder / "images" / "1.png") == b"image one"  # `images` is open from here on
        (folder / "images").rename(folder / "kept")
        (folder / "images").symlink_to(folder.parent / "outside", target_is_directory=True)
        (folder.parent / "outside" / "1.png").write_bytes(b"outside bytes")
        assert files.read(folder / "images" / "1.png") == b"image one"
        assert files.read(folder / "images" / "secret.png") is None  # read in the opened folder, not outside
