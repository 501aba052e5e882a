"""Tiny generators shared by the generation tests: loading one costs seconds, a piece a fraction of one."""

from __future__ import annotations

import pytest

from mintprep.generate import GenerationRequest, Generator, GeneratorSettings, load_generator
from mintprep.guards.image_guards import GuardSettings

FAST = dict(kind="tiny", steps=4, width=64, height=64, upscale=1, max_attempts=2)


def settings(**changes: object) -> GeneratorSettings:
    return GeneratorSettings(**{**FAST, **changes})


def request(gen_settings: GeneratorSettings, token_id: int = 1, prompt: str = "a tulip in pixel art style",
            **changes: object) -> GenerationRequest:
    return GenerationRequest(token_id=token_id, prompt=prompt, negative_prompt="blurry", collection_seed=1234,
                             settings=gen_settings, guards=GuardSettings(), **changes)


@pytest.fixture(scope="session")
def tiny() -> Generator:
    return load_generator(settings())


@pytest.fixture(scope="session")
def overflow() -> Generator:
    return load_generator(settings(model="fp16-overflow-vae"))
