"""base.watched_files: a look at some folders tells a later one whether any file came, went or changed, without
reading them; a file changed just before the look is checked by its bytes (git's racily clean entries)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mintprep.base import FilesSeen, files_unchanged, look_at_files
from mintprep.base import watched_files

NOTHING_SKIPPED = lambda path: False  # noqa: E731


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel, data in {"a.txt": b"one", "sub/b.bin": b"two", "sub/deeper/c": b"three"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    return tmp_path


def test_a_look_sees_itself_unchanged_and_survives_its_json(tree: Path):
    seen = look_at_files([str(tree)], NOTHING_SKIPPED)
    assert seen is not None and files_unchanged(seen, NOTHING_SKIPPED)
    assert files_unchanged(FilesSeen.from_json(seen.to_json()), NOTHING_SKIPPED)


@pytest.mark.parametrize("change", ["added", "removed", "rewritten", "renamed", "emptied folder"])
def test_any_file_that_comes_goes_or_changes_is_a_change(tree: Path, change: str, monkeypatch: pytest.MonkeyPatch):
    for path in tree.rglob("*"):  # written a minute ago: a rewrite now gets another mtime, whatever the clock's tick
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 60 * 10**9))
    with monkeypatch.context() as patched:
        patched.setattr(watched_files, "RACY_NS", 0)  # and their ctimes (set now by utime) as old as that
        seen = look_at_files([str(tree)], NOTHING_SKIPPED)
    assert seen is not None and seen.racy == {}  # identities only
    if change == "added":
        (tree / "sub" / "new").write_bytes(b"")
    elif change == "removed":
        (tree / "sub" / "deeper" / "c").unlink()
    elif change == "rewritten":
        (tree / "a.txt").write_bytes(b"ONE")  # same size, new mtime
    elif change == "renamed":
        (tree / "a.txt").rename(tree / "a2.txt")
    else:
        (tree / "sub" / "deeper" / "c").unlink()
        (tree / "sub" / "deeper").rmdir()
    assert not files_unchanged(seen, NOTHING_SKIPPED)


def test_a_file_changed_just_before_the_look_is_checked_by_its_bytes(tree: Path):
    """The same size and mtime (a write in the same clock tick) is still found: its bytes were hashed."""
    seen = look_at_files([str(tree)], NOTHING_SKIPPED)
    target = tree / "a.txt"
    assert seen is not None and str(target) in seen.racy
    before = target.stat()
    target.write_bytes(b"ONE")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not files_unchanged(seen, NOTHING_SKIPPED)
    target.write_bytes(b"one")
    assert files_unchanged(seen, NOTHING_SKIPPED)  # the same bytes again: nothing to redo


def test_what_skip_names_may_change_and_a_missing_root_may_not_appear(tree: Path):
    missing = tree / "not-yet"
    seen = look_at_files([str(tree / "sub"), str(missing)], lambda path: path.endswith("-shm"))
    assert seen is not None
    (tree / "sub" / "state.db-shm").write_bytes(b"index")
    (tree / "outside-the-roots.json").write_bytes(b"{}")
    assert files_unchanged(seen, lambda path: path.endswith("-shm"))
    missing.write_bytes(b"")
    assert not files_unchanged(seen, lambda path: path.endswith("-shm"))


def test_a_fifo_is_never_opened(tree: Path):
    """A recent FIFO would block a read forever: what is not a regular file is seen by its identity only."""
    os.mkfifo(tree / "pipe")
    seen = look_at_files([str(tree)], NOTHING_SKIPPED)
    assert seen is not None and str(tree / "pipe") not in seen.racy
    assert files_unchanged(seen, NOTHING_SKIPPED)


def test_too_many_files_is_no_look(tree: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(watched_files, "MAX_FILES", 2)
    assert look_at_files([str(tree)], NOTHING_SKIPPED) is None


def test_a_racy_look_is_worth_taking_again_once_its_files_are_old(tree: Path, monkeypatch: pytest.MonkeyPatch):
    seen = look_at_files([str(tree)], NOTHING_SKIPPED)
    assert seen is not None and seen.racy and not seen.worth_looking_again
    monkeypatch.setattr(watched_files, "RACY_NS", -10**12)  # as if the look were long ago
    assert seen.worth_looking_again
