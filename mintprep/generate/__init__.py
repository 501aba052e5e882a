"""Generation that never writes a broken image.

    gen = load_generator(settings)          # loads the pipeline once
    result = gen.generate(GenerationRequest(token_id=3, prompt="a tulip", collection_seed=1234, settings=settings))
    key = gen.request_key(request)          # cache key: everything that determines the pixels

`generate` is a pure function of the request: no disk, no ledger, so pieces can be fanned out to workers.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "environment_identity": "machine", "FingerprintCache": "fingerprint", "key_environment": "fingerprint",
    "model_fingerprint": "fingerprint", "resolve_source": "source", "numeric_versions": "machine",
    "Generator": "generator",
    "calls": "key", "check_compatible": "key", "request_key": "key",
    "load_generator": "load",
    "attempt_seed": "request", "AttemptRecord": "request", "GenerationRequest": "request",
    "GenerationResult": "request",
    "GeneratorSettings": "settings",
})
