"""`write_durably` with links (real files, a real second file system for the cross-device case): files and links
land whole under their names, a link shares its source's file, a link across file systems becomes a copy, and a
batch that fails midway leaves neither a real name nor a temp file; `read_whole` reads a file whole."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from mintprep.base.durable_files import write_durably


def names(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_files_and_links_land_whole_and_a_link_shares_its_source(tmp_path: Path):
    source = tmp_path / "objects" / "ab" / "abc"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"the bytes")
    written = write_durably([(tmp_path / "blocks" / "x1" / "new", b"fresh")],
                            [(tmp_path / "blocks" / "y2" / "linked", str(source))])
    assert written == 2
    assert (tmp_path / "blocks" / "x1" / "new").read_bytes() == b"fresh"
    assert os.path.samefile(tmp_path / "blocks" / "y2" / "linked", source)
    assert names(tmp_path) == ["blocks/x1/new", "blocks/y2/linked", "objects/ab/abc"]  # no temp left


def test_a_link_across_file_systems_is_a_copy(tmp_path: Path):
    other = Path("/dev/shm")
    if not other.is_dir() or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        missing = "needs /dev/shm on a file system other than the test's temp folder"
        if os.environ.get("CI"):
            pytest.fail(missing)  # as tests/support/tools.require_tool: nothing skips silently under CI
        pytest.skip(missing)
    source = other / f"mintprep-test-{os.getpid()}"
    source.write_bytes(b"elsewhere")
    try:
        assert write_durably([], [(tmp_path / "blocks" / "copied", str(source))]) == 1
        copied = tmp_path / "blocks" / "copied"
        assert copied.read_bytes() == b"elsewhere" and not os.path.samefile(copied, source)
    finally:
        source.unlink()
    assert names(tmp_path) == ["blocks/copied"]


def test_a_batch_that_fails_midway_leaves_no_name_and_no_temp(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        write_durably([(tmp_path / "a" / "one", b"1"), (tmp_path / "b" / "two", b"2")],
                      [(tmp_path / "c" / "three", str(tmp_path / "no such source"))])
    assert names(tmp_path) == []


def test_read_whole_reads_to_the_end_whatever_the_size_said(tmp_path: Path):
    """read_whole trusts the size fstat gives only when the read agrees with it: an empty file, a file, and a pipe
    (size 0, 300,000 bytes behind it, written by another thread) all come back whole."""
    from mintprep.base import read_whole

    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "file").write_bytes(b"x" * 70_000)
    assert read_whole(str(tmp_path / "empty")) == b"" and read_whole(str(tmp_path / "file")) == b"x" * 70_000
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    sent = bytes(range(256)) * 1172

    def write() -> None:
        with open(pipe, "wb") as writer:
            writer.write(sent)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_whole(str(pipe)) == sent
    finally:
        writer.join()
