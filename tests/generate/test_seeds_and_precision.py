"""Pure pieces: the attempt-seed derivation and the precision ladder."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mintprep.generate import GeneratorSettings, attempt_seed
from mintprep.generate.precision import next_rung_raising, precision_ladder

COMPONENTS = ["text_encoder", "unet", "vae"]


@given(st.integers(0, 2**63 - 1), st.integers(1, 100_000), st.integers(0, 1000))
def test_attempt_seed_is_the_documented_sha256_derivation(collection_seed: int, token_id: int, attempt: int) -> None:
    payload = json.dumps(["mintprep.attempt_seed/v1", collection_seed, token_id, attempt], separators=(",", ":"))
    expected = int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big") >> 1
    seed = attempt_seed(collection_seed, token_id, attempt)
    assert seed == expected
    assert 0 <= seed < 2**63


def test_attempt_seeds_differ_between_pieces_and_retries() -> None:
    seeds = {attempt_seed(1234, token, n) for token in range(1, 78) for n in range(3)}
    assert len(seeds) == 77 * 3


def test_ladder_raises_every_component_to_each_floor_and_never_lowers() -> None:
    ladder = precision_ladder(GeneratorSettings(precision={"default": "fp16", "vae": "fp32"},
                                                fallback=["bf16", "fp32"]), COMPONENTS)
    assert ladder == [
        {"text_encoder": "fp16", "unet": "fp16", "vae": "fp32"},
        {"text_encoder": "bf16", "unet": "bf16", "vae": "fp32"},
        {"text_encoder": "fp32", "unet": "fp32", "vae": "fp32"},
    ]
    assert next_rung_raising(ladder, 0, "vae") is None
    assert next_rung_raising(ladder, 0, "unet") == 1


def test_ladder_drops_rungs_that_change_nothing() -> None:
    ladder = precision_ladder(GeneratorSettings(precision="fp32", fallback=["fp16", "bf16", "fp32"]), COMPONENTS)
    assert ladder == [{name: "fp32" for name in COMPONENTS}]


def test_vae_failure_climbs_to_the_first_rung_that_raises_the_vae() -> None:
    ladder = precision_ladder(GeneratorSettings(precision={"default": "fp32", "vae": "fp16"},
                                                fallback=["bf16", "fp32"]), COMPONENTS)
    assert [rung["vae"] for rung in ladder] == ["fp16", "bf16", "fp32"]
    assert next_rung_raising(ladder, 0, "vae") == 1
    assert next_rung_raising(ladder, 1, "vae") == 2


def test_unknown_precision_component_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="unknown component vea"):
        GeneratorSettings(precision={"vea": "fp16"})


def test_cpu_thread_count_is_part_of_the_request_key(tiny) -> None:
    """CPU kernels split sums by thread count, so the same piece on 1 and 2 threads is not the same bytes."""
    import torch

    from tests.generate.conftest import request

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = tiny.request_key(request(tiny.settings, 1))
        torch.set_num_threads(2)
        two = tiny.request_key(request(tiny.settings, 1))
    finally:
        torch.set_num_threads(before)
    assert one != two
