"""Where generation runs: in this process (`local`) or on a Ray cluster (`ray`).

An executor takes pure GenerationRequests and yields GenerationResults as they finish; it never
touches the ledger or the object store (the driver alone writes those), so results from any worker
are recorded exactly once. It keys requests without loading anything (mintprep.generate.key): the model is
loaded, and Ray's actors started, on the first request it has to run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.executors.local import Executor, KeysOutdated, LocalExecutor, check_keys_hold

if TYPE_CHECKING:
    from mintprep.executors.settings import ExecutorSettings
    from mintprep.generate.fingerprint import FingerprintCache
    from mintprep.generate.settings import GeneratorSettings

__all__ = ["Executor", "KeysOutdated", "LocalExecutor", "check_keys_hold", "make_executor"]


def make_executor(settings: "ExecutorSettings", generator: "GeneratorSettings",
                  cache: "FingerprintCache | None" = None) -> Executor:
    if settings.kind == "ray":
        from mintprep.executors.ray import RayExecutor

        return RayExecutor(settings, generator, cache=cache)
    return LocalExecutor(generator, cache)
