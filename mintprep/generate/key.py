"""The request key: sha256 of everything that determines a piece's pixels, computed without loading the model.

The driver keys every piece before deciding what to generate, so a rerun with nothing to do loads nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mintprep.generate.request import GenerationRequest
from mintprep.generate.settings import GeneratorSettings
from mintprep.base import canonical_json, content_key

# Settings fixed when the pipeline is loaded; a request must agree with them (the rest may vary per request).
LOAD_FIELDS = ("kind", "model", "revision", "config", "scheduler", "scheduler_config", "device", "offload",
               "batch_size")
# Settings that shape each piece's pixels, and so belong in its request key.
PIECE_FIELDS = ("steps", "guidance", "width", "height", "upscale", "precision", "fallback", "max_attempts",
                "safety_checker")


def request_key(request: GenerationRequest, model_fingerprint: str, environment: dict[str, Any]) -> str:
    """`model_fingerprint` from mintprep.generate.fingerprint (the model's files: weights, configs, scheduler
    config); `environment` its key_environment (device type, CPU threads, numeric versions)."""
    settings = request.settings
    return content_key({
        "model": model_fingerprint,
        "prompt": request.prompt,
        "negative_prompt": request.negative_prompt,
        "collection_seed": request.collection_seed,
        "token_id": request.token_id,
        "first_attempt": request.first_attempt,
        # Only when given: the keys of every piece made before seeds could be given stay as they were.
        **({"seed": request.seed} if request.seed is not None else {}),
        "settings": settings.model_dump(mode="json", include=set(PIECE_FIELDS)),
        # The scheduler's class and overrides; its base config is a file of the model, in the fingerprint.
        "scheduler": settings.model_dump(mode="json", include={"scheduler", "scheduler_config"}),
        # Pixel thresholds are re-applied to stored images by the validate stage (mintprep.stages.screen):
        # changing one must not resample pieces that still pass.
        "guards": request.guards.tensor_thresholds(),
        # Its first attempt is sampled in a pipeline call of batch_size samples, at this position.
        "batch": {"size": settings.batch_size, "position": batch_position(request, settings.batch_size)},
        "environment": environment,
    })


def batch_position(request: GenerationRequest, size: int) -> int:
    """Pieces are batched by token id, so a piece's batch (and place in it) never depends on what else is run."""
    return request.token_id % size


def call_of(request: GenerationRequest) -> str:
    """Pieces with equal values share a pipeline call: the same batch (token_id // batch_size), the same settings."""
    return canonical_json([request.token_id // request.settings.batch_size,
                           request.settings.model_dump(mode="json"), request.guards.tensor_thresholds()]).decode()


def calls(requests: Iterable[GenerationRequest]) -> list[list[GenerationRequest]]:
    """`requests` grouped into pipeline calls, in the order of each call's first piece."""
    grouped: dict[str, list[GenerationRequest]] = {}
    for request in requests:
        grouped.setdefault(call_of(request), []).append(request)
    return list(grouped.values())


def check_compatible(loaded: GeneratorSettings, wanted: GeneratorSettings) -> None:
    """A request's load-time settings must be the executor's: one loaded model serves them all."""
    have, want = loaded.model_dump(include=set(LOAD_FIELDS)), wanted.model_dump(include=set(LOAD_FIELDS))
    if have != want:
        differing = sorted(key for key in LOAD_FIELDS if have[key] != want[key])
        raise ValueError(f"request settings differ from the loaded generator in {', '.join(differing)}; "
                         "load another generator for them")
