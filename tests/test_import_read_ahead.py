"""The importer's read-ahead (a folder's tokens read and checked by a thread while the batch before is recorded):
what it yields is what the reader yields, in order; an error the reader meets is raised in the caller after the
tokens read before it; and a caller that stops early stops the thread and closes the reader (its open folder)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from mintprep.base.errors import UserError
from mintprep.commands.importer import _read_ahead


def numbers(count: int, fail_at: int | None = None) -> Iterator[int]:
    for number in range(count):
        if number == fail_at:
            raise UserError(f"unreadable at {number}")
        yield number


def test_everything_in_order_then_the_readers_error_in_the_caller():
    assert list(_read_ahead(numbers(2000), 16)) == list(range(2000))  # type: ignore[arg-type]
    seen = []
    with pytest.raises(UserError, match="unreadable at 5"):
        for number in _read_ahead(numbers(50, fail_at=5), 16):  # type: ignore[arg-type]
            seen.append(number)
    assert seen == [0, 1, 2, 3, 4]


def test_a_caller_that_stops_early_stops_the_thread_and_closes_the_reader():
    closed = threading.Event()

    def endless() -> Iterator[int]:
        try:
            number = 0
            while True:
                yield number
                number += 1
        finally:
            closed.set()

    ahead = _read_ahead(endless(), 4)  # type: ignore[arg-type]
    assert [next(ahead) for _ in range(3)] == [0, 1, 2]
    ahead.close()
    assert closed.is_set()
    assert not [t for t in threading.enumerate() if t.name == "import-read-ahead"]
