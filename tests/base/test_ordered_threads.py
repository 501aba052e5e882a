"""mintprep.base.ordered_threads.in_order: results in input order whatever order the threads finish in, at most
`threads` running, the first item alone before the rest start, an error raised at its item's turn, and an early
stop that starts nothing more."""

from __future__ import annotations

import threading
import time

import pytest

from mintprep.base.ordered_threads import in_order


class _Watched:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = self.most = 0
        self.started: list[int] = []

    def __call__(self, item: int) -> int:
        with self.lock:
            self.started.append(item)
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.002 * (item % 5))  # later items often finish first
        with self.lock:
            self.running -= 1
        if item == 13:
            raise ValueError("thirteen")
        return item * item


def test_results_come_in_input_order_with_at_most_threads_running():
    work = _Watched()
    assert list(in_order(work, range(12), 4)) == [(i, i * i) for i in range(12)]
    assert 1 < work.most <= 4 and work.started[0] == 0


def test_the_first_item_runs_alone_before_the_rest_start():
    seen_running: list[int] = []
    work = _Watched()

    def first_alone(item: int) -> int:
        if item == 0:
            time.sleep(0.05)
            seen_running.append(work.running)
        return work(item)

    list(in_order(first_alone, range(8), 4))
    assert seen_running == [0] and work.started[0] == 0


def test_an_error_is_raised_at_its_items_turn():
    results = []
    with pytest.raises(ValueError, match="thirteen"):
        for item, square in in_order(_Watched(), range(20), 4):
            results.append(item)
    assert results == list(range(13))


def test_closing_early_starts_nothing_more():
    work = _Watched()
    reads = in_order(work, range(1000), 4)
    for item, _ in reads:
        if item == 3:
            break
    reads.close()
    time.sleep(0.05)
    started = len(work.started)
    time.sleep(0.05)
    assert started == len(work.started) <= 3 + 2 * 4 + 1
