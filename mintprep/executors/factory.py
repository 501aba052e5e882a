"""Which executor runs generation: `executor.kind` in the collection file, local or Ray (imported only then)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.executors.local import Executor, LocalExecutor

if TYPE_CHECKING:
    from mintprep.executors.settings import ExecutorSettings
    from mintprep.generate import FingerprintCache, GeneratorSettings


def make_executor(settings: "ExecutorSettings", generator: "GeneratorSettings",
                  cache: "FingerprintCache | None" = None) -> Executor:
    if settings.kind == "ray":
        from mintprep.executors.ray import RayExecutor

        return RayExecutor(settings, generator, cache=cache)
    return LocalExecutor(generator, cache)
