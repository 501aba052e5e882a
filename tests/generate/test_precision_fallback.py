"""A real fp16 overflow: the `fp16-overflow-vae` tiny model's decoder activations pass 65504 in fp16."""

from __future__ import annotations

import pytest
import torch

from mintprep.generate import Generator, attempt_seed
from tests.generate.conftest import request, settings


def test_the_overflow_is_real_in_fp16_and_absent_in_fp32(overflow: Generator) -> None:
    vae = overflow.pipe.vae
    latents = torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        fp32 = vae.to(torch.float32).decode(latents / vae.config.scaling_factor).sample
        fp16 = vae.to(torch.float16).decode((latents / vae.config.scaling_factor).half()).sample
    vae.to(torch.float32)
    assert torch.isfinite(fp32).all()
    assert not torch.isfinite(fp16).all()


@pytest.mark.slow
def test_vae_overflow_is_rejected_then_the_same_latents_are_redecoded_in_fp32(overflow: Generator) -> None:
    mixed = settings(model="fp16-overflow-vae", precision={"default": "fp32", "vae": "fp16"}, fallback=["fp32"])
    result = overflow.generate(request(mixed, 4))
    rejected, accepted = result.attempts
    assert (rejected.guard, rejected.precision["vae"], rejected.redecode_of) == ("decoded_nonfinite", "fp16", None)
    assert rejected.metrics["nonfinite_share"] > 0
    assert (accepted.guard, accepted.precision["vae"], accepted.redecode_of) == (None, "fp32", 0)
    assert accepted.seed == rejected.seed == attempt_seed(1234, 4, 0)
    assert result.accepted_attempt == 1
    assert result.provenance["dtypes"]["vae"] == "fp32"

    fp32_run = overflow.generate(request(settings(model="fp16-overflow-vae"), 4))
    assert fp32_run.accepted_attempt == 0
    assert result.png == fp32_run.png, "re-decoded image must equal an all-fp32 run of the same seed"


@pytest.mark.slow
def test_without_a_fallback_the_piece_is_reported_not_written(overflow: Generator) -> None:
    stuck = settings(model="fp16-overflow-vae", precision={"vae": "fp16"}, fallback=[], max_attempts=2)
    result = overflow.generate(request(stuck, 7))
    assert result.png is None and result.provenance is None
    assert [a.guard for a in result.attempts] == ["decoded_nonfinite", "decoded_nonfinite"]
    assert [a.seed for a in result.attempts] == [attempt_seed(1234, 7, n) for n in (0, 1)]


def test_all_fp16_pipeline_runs_on_cpu_and_climbs_the_ladder(overflow: Generator) -> None:
    half = settings(model="fp16-overflow-vae", precision="fp16", fallback=["bf16", "fp32"])
    result = overflow.generate(request(half, 8))
    assert result.attempts[0].precision == {"text_encoder": "fp16", "unet": "fp16", "vae": "fp16"}
    assert result.attempts[0].guard == "decoded_nonfinite"
    # bf16 has fp32's exponent range: the overflow is gone one rung up, on the same latents.
    assert result.attempts[1].precision["vae"] == "bf16" and result.attempts[1].redecode_of == 0
    assert result.ok
