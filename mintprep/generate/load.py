"""Loading a generator: the model `settings` names, offline, prepared for guarded generation. torch and diffusers
take seconds to import: only a command that generates pays for them, when it calls `load_generator`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mintprep.generate.fingerprint import FingerprintCache
    from mintprep.generate.generator import Generator
    from mintprep.generate.settings import GeneratorSettings


def load_generator(settings: GeneratorSettings, cache: FingerprintCache | None = None) -> Generator:
    """Load the model `settings` names (offline) and prepare it for guarded generation; `cache` remembers the
    hashes of its files (default: in memory only)."""
    from mintprep.generate.environment import quiet_transformers, resolve_device

    with quiet_transformers():
        from mintprep.generate.fingerprint import FingerprintCache
        from mintprep.generate.generator import Generator
        from mintprep.generate.loading import load_model

        return Generator(settings, load_model(settings, cache or FingerprintCache()), resolve_device(settings.device))
