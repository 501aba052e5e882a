"""A request with the creator's own seed (GenerationRequest.seed): the first attempt samples from it, the precision
ladder keeps it (a piece that overflowed in fp16 on the creator's machine comes out whole, from the same noise),
and any other rejection moves on to derived seeds. Real tiny models on CPU."""

from __future__ import annotations

import pytest

from mintprep.generate import Generator, attempt_seed, load_generator
from tests.generate.conftest import request, settings

CREATOR_SEED = 2**64 - 12345  # torch takes any unsigned 64-bit seed; a creator's script may have used one


def test_the_own_seed_is_the_noise_seed_and_is_in_the_key(tiny: Generator) -> None:
    derived = attempt_seed(1234, 3, 0)
    plain = tiny.generate(request(tiny.settings, 3))
    given = tiny.generate(request(tiny.settings, 3, seed=derived))
    assert given.png == plain.png and given.attempts[0].seed == derived
    other = tiny.generate(request(tiny.settings, 3, seed=CREATOR_SEED))
    assert other.ok and other.png != plain.png and other.attempts[0].seed == CREATOR_SEED
    assert other.provenance["seed"] == CREATOR_SEED and "own seed" in other.provenance["seed_derivation"]
    assert tiny.generate(request(tiny.settings, 3, seed=CREATOR_SEED)).png == other.png
    assert tiny.request_key(request(tiny.settings, 3, seed=derived)) != tiny.request_key(request(tiny.settings, 3))


@pytest.mark.slow
def test_an_fp16_overflow_of_the_creators_seed_is_redecoded_from_the_same_noise(overflow: Generator) -> None:
    mixed = settings(model="fp16-overflow-vae", precision={"default": "fp32", "vae": "fp16"}, fallback=["fp32"])
    result = overflow.generate(request(mixed, 4, seed=CREATOR_SEED))
    rejected, accepted = result.attempts
    assert rejected.guard == "decoded_nonfinite" and accepted.redecode_of == 0
    assert rejected.seed == accepted.seed == CREATOR_SEED
    fp32 = overflow.generate(request(settings(model="fp16-overflow-vae"), 4, seed=CREATOR_SEED))
    assert result.png == fp32.png


@pytest.mark.slow
def test_a_rejection_no_precision_cures_moves_on_to_derived_seeds() -> None:
    flat = load_generator(settings(model="constant-decoder"))
    result = flat.generate(request(flat.settings, 5, seed=CREATOR_SEED))
    assert not result.ok and [a.seed for a in result.attempts] == [CREATOR_SEED, attempt_seed(1234, 5, 1)]
