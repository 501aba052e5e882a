"""Work mapped over threads, its results taken in input order: round trips to a gateway overlapped, consumed as if
made one after another."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def in_order(work: Callable[[Item], Result], items: Iterable[Item],
             threads: int | Callable[[], int]) -> Iterator[tuple[Item, Result]]:
    """(item, work(item)) for each item, in order, with up to `threads` running at once and at most `threads` more
    finished ahead of the consumer, so what they hold is bounded. The first item runs alone: what it caches (a
    directory listing the others resolve through) is there before the rest start, and `threads`, given as a
    function, is asked after it (how the first went says whether threads help). An exception from `work` is raised
    when its item's turn comes; closing the iterator early cancels every item not started."""
    items = iter(items)
    for first in items:
        yield first, work(first)
        break
    threads = threads() if callable(threads) else threads
    if threads <= 1:
        for item in items:
            yield item, work(item)
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="read")
    pending: deque[tuple[Item, Future[Result]]] = deque()
    try:
        for item in items:
            pending.append((item, pool.submit(work, item)))
            if len(pending) >= 2 * threads:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
