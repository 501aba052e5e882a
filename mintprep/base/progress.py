"""Progress reporting the pipeline can drive without knowing who watches (rich bars, or nobody)."""

from __future__ import annotations

from contextlib import AbstractContextManager, contextmanager
from typing import Iterator, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn



class Advance(Protocol):
    def __call__(self, note: str | None = None) -> None: ...


class ProgressSink(Protocol):
    def task(self, description: str, total: int) -> AbstractContextManager[Advance]: ...


class NoProgress:
    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Advance]:
        yield lambda note=None: None


class RichProgress:
    """One bar per stage on stderr; rich draws nothing animated when stderr is not a terminal."""

    def __init__(self, console: Console):
        self._progress = Progress(
            TextColumn("[bold]{task.description:<10}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[note]}"), console=console,
            transient=False,
        )

    def __enter__(self) -> "RichProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    @contextmanager
    def task(self, description: str, total: int) -> Iterator[Advance]:
        task_id = self._progress.add_task(description, total=total, note="")

        def advance(note: str | None = None) -> None:
            self._progress.update(task_id, advance=1, note=note or "")

        yield advance
