"""Where generation runs: in this process (`local`) or on a Ray cluster (`ray`).

An executor takes pure GenerationRequests and yields GenerationResults as they finish; it never
touches the ledger or the object store (the driver alone writes those), so results from any worker
are recorded exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, Protocol

if TYPE_CHECKING:
    from mintprep.executors.settings import ExecutorSettings
    from mintprep.generate import GenerationRequest, GenerationResult
    from mintprep.generate.settings import GeneratorSettings


class Executor(Protocol):
    def request_key(self, request: "GenerationRequest") -> str: ...

    def run(self, requests: Iterable["GenerationRequest"]) -> Iterator["GenerationResult"]: ...

    def close(self) -> None: ...

    def status(self) -> str | None:
        """One line for the progress display (workers, throughput, failures), or None."""


class LocalExecutor:
    """One pipeline loaded once in this process; requests run one after another."""

    def __init__(self, settings: "GeneratorSettings"):
        from mintprep.generate import load_generator

        self._generator = load_generator(settings)

    def request_key(self, request: "GenerationRequest") -> str:
        return self._generator.request_key(request)

    def run(self, requests: Iterable["GenerationRequest"]) -> Iterator["GenerationResult"]:
        for request in requests:
            yield self._generator.generate(request)

    def close(self) -> None:
        pass

    def status(self) -> str | None:
        return None


def make_executor(settings: "ExecutorSettings", generator: "GeneratorSettings") -> Executor:
    if settings.kind == "ray":
        from mintprep.executors.ray import RayExecutor

        return RayExecutor(settings, generator)
    return LocalExecutor(generator)
