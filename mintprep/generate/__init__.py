"""Generation that never writes a broken image.

    gen = load_generator(settings)          # loads the pipeline once
    result = gen.generate(GenerationRequest(token_id=3, prompt="a tulip", collection_seed=1234, settings=settings))
    key = gen.request_key(request)          # cache key: everything that determines the pixels

`generate` is a pure function of the request: no disk, no ledger, so pieces can be fanned out to workers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mintprep.generate.fingerprint import FingerprintCache
    from mintprep.generate.generator import Generator
    from mintprep.generate.request import AttemptRecord, GenerationRequest, GenerationResult, attempt_seed
    from mintprep.generate.settings import GeneratorSettings

# Where each public name lives, imported on first use: reading `generator:` settings (every command loads the
# collection file) must not import numpy and the guards, let alone torch.
_HOMES = {"AttemptRecord": "request", "GenerationRequest": "request", "GenerationResult": "request",
          "attempt_seed": "request", "GeneratorSettings": "settings", "FingerprintCache": "fingerprint",
          "Generator": "generator"}


def load_generator(settings: GeneratorSettings, cache: FingerprintCache | None = None) -> Generator:
    """Load the model `settings` names (offline) and prepare it for guarded generation; `cache` remembers the
    hashes of its files (default: in memory only)."""
    # torch and diffusers take seconds to import: only commands that generate pay for them.
    from mintprep.generate.environment import quiet_transformers, resolve_device

    with quiet_transformers():
        from mintprep.generate.fingerprint import FingerprintCache
        from mintprep.generate.generator import Generator
        from mintprep.generate.loading import load_model

        return Generator(settings, load_model(settings, cache or FingerprintCache()), resolve_device(settings.device))


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"mintprep.generate.{_HOMES[name]}"), name)
    raise AttributeError(name)


__all__ = ["AttemptRecord", "GenerationRequest", "GenerationResult", "Generator", "GeneratorSettings",
           "attempt_seed", "load_generator"]
