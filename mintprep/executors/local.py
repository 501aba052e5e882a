"""Generation in this process: one pipeline, loaded on the first request to run; and the check every executor makes
before its first result is recorded, that the request keys still describe the loaded model (`check_keys_hold`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Protocol

from mintprep.base import KeysOutdated

if TYPE_CHECKING:
    from mintprep.generate import FingerprintCache, GenerationRequest, GenerationResult, Generator, GeneratorSettings


class Executor(Protocol):
    def request_key(self, request: "GenerationRequest") -> str: ...

    def run(self, requests: Iterable["GenerationRequest"]) -> Iterator["GenerationResult"]: ...

    def close(self) -> None: ...

    def status(self) -> str | None:
        """One line for the progress display (workers, throughput, failures), or None."""


class LocalExecutor:
    """One pipeline, loaded in this process on the first request to run; requests run one pipeline call (a batch of
    `generator.batch_size` pieces) after another."""

    def __init__(self, settings: "GeneratorSettings", cache: "FingerprintCache | None" = None):
        from mintprep.generate import FingerprintCache

        self._settings = settings
        self._cache = cache or FingerprintCache()
        self._generator: Generator | None = None
        self._keyed_with: tuple[str, dict[str, Any]] | None = None

    def request_key(self, request: "GenerationRequest") -> str:
        from mintprep.generate import check_compatible, key_environment, model_fingerprint, request_key

        if self._generator is not None:
            return self._generator.request_key(request)
        check_compatible(self._settings, request.settings)
        if self._keyed_with is None:
            self._keyed_with = (model_fingerprint(self._settings, self._cache),
                                key_environment(self._settings.device, self._cache))
        return request_key(request, *self._keyed_with)

    def run(self, requests: Iterable["GenerationRequest"]) -> Iterator["GenerationResult"]:
        from mintprep.generate import calls

        for call in calls(requests):
            yield from self._loaded().generate_batch(call)

    def _loaded(self) -> "Generator":
        if self._generator is None:
            from mintprep.generate import load_generator

            self._generator = load_generator(self._settings, self._cache)
            loaded = (self._generator.files_fingerprint, self._generator.key_environment())
            check_keys_hold(self._keyed_with, loaded, self._settings, self._cache)
        return self._generator

    def close(self) -> None:
        pass

    def status(self) -> str | None:
        return None


def check_keys_hold(keyed_with: tuple[str, dict[str, Any]] | None, loaded: tuple[str, dict[str, Any]],
                    settings: "GeneratorSettings", cache: "FingerprintCache") -> None:
    """Before the first result is recorded: the keys must describe the model and machine that generate it. A
    remembered environment that no longer holds is corrected, so the next run keys right."""
    if keyed_with is None or keyed_with == loaded:
        return
    from mintprep.generate import environment_identity

    what = "the model's files changed" if keyed_with[0] != loaded[0] else "the machine's torch setup changed"
    cache.remember_environment(environment_identity(settings.device), loaded[1])
    raise KeysOutdated(f"{what} while the pieces were being keyed ({keyed_with[1]} -> {loaded[1]}); nothing was "
                       "generated: run again")
