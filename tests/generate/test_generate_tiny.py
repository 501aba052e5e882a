"""Guarded generation with the real tiny diffusers pipeline on CPU: nothing faked after the fact."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mintprep.generate import GenerationRequest, Generator, GeneratorSettings, attempt_seed, load_generator
from mintprep.guards.image_guards import load_rgb, validate_png
from tests.conftest import EXAMPLE
from tests.generate.conftest import request, settings


@pytest.mark.slow
def test_example_collection_settings_pass_the_default_guards(tiny: Generator) -> None:
    """The example collection (tiny model, its steps and upscale) must not trip the default guards."""
    import yaml

    example = GeneratorSettings(**yaml.safe_load(EXAMPLE.read_text())["generator"])
    gen = load_generator(example)
    flowers = ["sunflower", "tulip", "poppy", "iris", "lotus", "sunflower"]
    for token_id, flower in enumerate(flowers, start=1):
        result = gen.generate(request(example, token_id, f"a {flower} in pixel art style, warm palette"))
        assert result.accepted_attempt == 0, [a.reason for a in result.attempts]
        rgb = load_rgb(result.png)
        assert rgb.shape == (example.height * example.upscale, example.width * example.upscale, 3)
        assert validate_png(result.png, result_guards := request(example).guards, upscale=example.upscale).ok
        # Structure and colour, with margin from the guards rather than just over them.
        assert result.metrics["luma_std"] > 3 * result_guards.min_std
        assert result.metrics["neighbour_corr"] > result_guards.min_neighbour_corr + 0.3
        assert np.ptp(rgb.reshape(-1, 3).mean(axis=0)) > 5, "channels differ: the image has colour"


@pytest.mark.slow
def test_same_request_gives_the_same_bytes_and_a_fresh_load_too(tiny: Generator) -> None:
    req = request(tiny.settings, 5)
    first, second = tiny.generate(req), tiny.generate(req)
    assert first.png == second.png and first.png_sha256 == second.png_sha256
    reloaded = load_generator(tiny.settings)
    assert reloaded.fingerprint == tiny.fingerprint
    assert reloaded.generate(req).png == first.png


@pytest.mark.slow
def test_piece_reproduces_from_its_recorded_provenance(tiny: Generator) -> None:
    original = tiny.generate(request(tiny.settings, 9))
    p = original.provenance
    assert p["seed"] == attempt_seed(p["collection_seed"], p["token_id"], p["attempt"])
    replay_settings = GeneratorSettings(kind="tiny", model=p["model"]["variant"], **p["sampling"])
    replay = load_generator(replay_settings).generate(GenerationRequest(
        token_id=p["token_id"], prompt=p["prompt"], negative_prompt=p["negative_prompt"],
        collection_seed=p["collection_seed"], settings=replay_settings, first_attempt=p["attempt"]))
    assert replay.png == original.png
    assert p["png_sha256"] == original.png_sha256
    assert p["model"]["fingerprint"] == tiny.fingerprint
    assert p["scheduler"]["class"] == "DDIMScheduler"
    assert p["dtypes"] == {"text_encoder": "fp32", "unet": "fp32", "vae": "fp32"}
    assert set(p["versions"]) >= {"torch", "diffusers", "transformers", "pillow", "zlib"}


def test_request_key_tracks_everything_that_changes_pixels(tiny: Generator, overflow: Generator) -> None:
    base = request(tiny.settings, 3)
    keys = {
        tiny.request_key(base),
        tiny.request_key(request(tiny.settings, 4)),
        tiny.request_key(request(tiny.settings, 3, prompt="a poppy")),
        tiny.request_key(request(settings(steps=5), 3)),
        tiny.request_key(request(settings(precision={"vae": "fp16"}), 3)),
        tiny.request_key(request(settings(upscale=2), 3)),
        tiny.request_key(base.model_copy(update={"collection_seed": 99})),
        overflow.request_key(base.model_copy(update={"settings": overflow.settings})),
    }
    assert len(keys) == 8
    assert tiny.request_key(base) == tiny.request_key(request(tiny.settings, 3))
    with pytest.raises(ValueError, match="model"):
        tiny.request_key(request(settings(model="constant-decoder"), 3))


@pytest.mark.slow
def test_nan_at_step_k_aborts_at_step_k_without_decoding(tiny: Generator) -> None:
    """A NaN enters the latents at step k through the UNet's real output (a forward hook), as an fp16 overflow
    would; the step guard must stop sampling there: k+1 UNet calls, no VAE call."""
    steps, k = 8, 3
    calls = {"unet": 0, "vae": 0}

    def poison(module, inputs, output):  # noqa: ANN001
        calls["unet"] += 1
        if calls["unet"] == k + 1:
            return (torch.full_like(output[0], float("nan")),) + tuple(output[1:])
        return output

    def count_decode(module, inputs, output):  # noqa: ANN001
        calls["vae"] += 1

    hooks = [tiny.pipe.unet.register_forward_hook(poison),
             tiny.pipe.vae.decoder.register_forward_hook(count_decode)]
    try:
        result = tiny.generate(request(settings(steps=steps, max_attempts=1), 2))
    finally:
        for hook in hooks:
            hook.remove()
    assert result.png is None and result.accepted_attempt is None
    (attempt,) = result.attempts
    assert (attempt.guard, attempt.step) == ("latents_nonfinite", k)
    assert calls == {"unet": k + 1, "vae": 0}
    assert attempt.metrics["nonfinite_share"] == 1.0
    # The pipeline is still usable and deterministic after the abort.
    assert tiny.generate(request(settings(steps=steps), 2)).png == tiny.generate(request(settings(steps=steps), 2)).png


@pytest.mark.slow
def test_constant_decoder_is_rejected_as_flat_on_every_attempt() -> None:
    gen = load_generator(settings(model="constant-decoder", max_attempts=3))
    result = gen.generate(request(gen.settings, 6, first_attempt=4))
    assert result.png is None
    assert [a.guard for a in result.attempts] == ["flat"] * 3
    assert [a.attempt for a in result.attempts] == [4, 5, 6]
    assert [a.seed for a in result.attempts] == [attempt_seed(1234, 6, n) for n in (4, 5, 6)]
    assert all(a.metrics["luma_std"] == 0.0 for a in result.attempts)


def test_components_are_in_eval_mode_without_gradients_and_it_is_checked(tiny: Generator) -> None:
    for module in tiny.modules.values():
        assert not module.training
        assert not any(p.requires_grad for p in module.parameters())
    gen = load_generator(settings())
    gen.pipe.unet.train()
    with pytest.raises(Exception, match="train mode"):
        gen.generate(request(gen.settings))
