"""`run_at`: the run of the collection file at a path, as `mintprep run` does it: nothing loaded when nothing
changed since the last run that found nothing to do (`unchanged.py`), else every stage, then what it saw kept."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from mintprep.base import ProgressSink
from mintprep.commands.run.report import RunReport
from mintprep.commands.run.unchanged import stamp_if_unchanged, unchanged_report


def run_at(path: Path, *, include_minted: bool = False, executor: str | None = None, ray_address: str | None = None,
           progress: Callable[[], AbstractContextManager[ProgressSink]] | None = None) -> RunReport:
    """Run the collection at `path`; `executor`/`ray_address` override its `executor:` section (a run given either
    always runs its stages); `progress` makes the progress display, only when stages run."""
    if executor is None and ray_address is None:
        report = unchanged_report(path, include_minted=include_minted)
        if report is not None:
            return report
    from mintprep.collection import read_collection
    from mintprep.commands.run import driver
    from mintprep.executors import with_cli_overrides

    col, source = read_collection(path)
    chosen = with_cli_overrides(col.spec.executor, kind=executor, address=ray_address)
    col = dataclasses.replace(col, spec=col.spec.model_copy(update={"executor": chosen}))
    with (progress or nullcontext)() as sink:
        report = driver.run_collection(col, include_minted=include_minted, progress=sink)
    stamp_if_unchanged(col, source, report, include_minted=include_minted)
    return report
