"""Work mapped over threads, its results taken in input order: round trips to a gateway overlapped, consumed as if
made one after another (`in_order`); or one list worked through on a thread of its own while the caller does other
work (`InBackground`)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

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


class InBackground(Generic[Item, Result]):
    """[work(item) for item in items] on a thread of its own, in order, while the caller does other work in a `with`
    block (no future an item: for a small file one costs as much as the work). Its first error stops it (`failed`
    says so, for the caller to stop too) and is raised by `results()`, which waits for the end; leaving the block
    normally waits the same way. Leaving it with an exception stops the thread before its next item and waits for
    it: once the block is left, no `work` is running (the caller may remove what it was writing into)."""

    def __init__(self, work: Callable[[Item], Result], items: Sequence[Item]) -> None:
        self._work, self._items = work, items
        self._stop = threading.Event()
        self._done: list[Result] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="background", daemon=True)

    def _run(self) -> None:
        try:
            for item in self._items:
                if self._stop.is_set():
                    return
                self._done.append(self._work(item))
        except BaseException as exc:  # raised on the caller's thread, by results()
            self._error = exc

    @property
    def failed(self) -> bool:
        return self._error is not None

    def results(self) -> list[Result]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._done

    def __enter__(self) -> InBackground[Item, Result]:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            self.results()
            return
        self._stop.set()
        self._thread.join()
