"""What a generation task takes and returns. Plain, frozen, picklable values: a task can run in another process."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mintprep.generate.settings import GeneratorSettings
from mintprep.base import StrictModel, canonical_json, sha256_hex
from mintprep.guards import GuardSettings

SEED_DOMAIN = "mintprep.attempt_seed/v1"


def attempt_seed(collection_seed: int, token_id: int, attempt: int) -> int:
    """The seed of sampling attempt `attempt` of a piece: the first 63 bits of
    sha256(canonical JSON of ["mintprep.attempt_seed/v1", collection_seed, token_id, attempt]).

    Hashing (rather than e.g. seed + token_id) keeps neighbouring pieces and retries uncorrelated, and makes every
    attempt reproducible from the three numbers the ledger stores."""
    digest = sha256_hex(canonical_json([SEED_DOMAIN, collection_seed, token_id, attempt]))
    return int(digest[:16], 16) >> 1


class GenerationRequest(StrictModel):
    token_id: int = Field(ge=0)
    prompt: str
    negative_prompt: str = ""
    collection_seed: int = Field(ge=0, lt=2**63)
    settings: GeneratorSettings
    guards: GuardSettings = GuardSettings()
    first_attempt: int = Field(0, ge=0, description="number of the first attempt; a regeneration starts past the "
                               "attempts already on record so it does not repeat their seeds")
    seed: int | None = Field(None, ge=0, lt=2**64, description="the first attempt's seed (the creator's own); it is "
                             "kept while the precision ladder cures a numeric failure, and any other rejection moves "
                             "on to derived seeds. None: every attempt's seed is derived (attempt_seed)")

    def first_seed(self) -> int:
        return attempt_seed(self.collection_seed, self.token_id, self.first_attempt) if self.seed is None else self.seed


class AttemptRecord(StrictModel):
    """One attempt at a piece: a sampling run, or a re-decode of an earlier attempt's latents at a higher precision.

    Attempt numbers are unique within a result. A sampling attempt n used seed attempt_seed(collection, token, n),
    or the request's own seed (GenerationRequest.seed); a re-decode (`redecode_of` set) reused the latents, and so the seed, of the attempt it names."""

    attempt: int
    seed: int
    precision: dict[str, str] = Field(description="component -> fp32 | bf16 | fp16, as used by this attempt")
    guard: str | None = Field(None, description="the guard that rejected this attempt; None if accepted")
    step: int | None = Field(None, description="sampling step index at which the guard fired, if during sampling")
    reason: str | None = None
    metrics: dict[str, float] = Field(default_factory=dict, description="values measured by the guards that ran")
    redecode_of: int | None = None
    thumbnail: bytes | None = Field(None, description="a small PNG of the rejected decode, when pixels existed")


class GenerationResult(StrictModel):
    token_id: int
    png: bytes | None = Field(None, description="the accepted image; None when every attempt was rejected")
    png_sha256: str | None = None
    accepted_attempt: int | None = None
    attempts: list[AttemptRecord]
    metrics: dict[str, float] = Field(default_factory=dict, description="guard measurements of the accepted image")
    provenance: dict[str, Any] | None = Field(None, description="everything needed to reproduce the accepted image")

    @property
    def ok(self) -> bool:
        return self.png is not None
