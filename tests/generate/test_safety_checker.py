"""The model's safety checker: a flagged image is a rejection, never an image.

The tiny pipeline gets a real `StableDiffusionSafetyChecker` (a tiny CLIP vision tower, built offline) and a
`CLIPImageProcessor`, is saved with `save_pretrained` and loaded as a user's diffusers folder would be. The checker
flags an image when cos(image embedding, concept) - threshold > 0 for any concept; cosines lie in [-1, 1], so a
threshold of -2 flags every image and +2 none."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from diffusers import StableDiffusionPipeline
from diffusers.pipelines.stable_diffusion.safety_checker import StableDiffusionSafetyChecker
from transformers import CLIPConfig, CLIPImageProcessor

from mintprep.generate import Generator, attempt_seed, load_generator
from mintprep.generate.tiny import build_tiny_pipeline
from tests.generate.conftest import request, settings

FLAGS_EVERY_IMAGE = -2.0
FLAGS_NO_IMAGE = 2.0
CHECKER_INPUT = 32


def _tiny_safety_checker(threshold: float) -> StableDiffusionSafetyChecker:
    torch.manual_seed(7)
    tower = dict(hidden_size=16, intermediate_size=32, num_attention_heads=2, num_hidden_layers=1)
    checker = StableDiffusionSafetyChecker(CLIPConfig(
        text_config=dict(tower, vocab_size=64),
        vision_config=dict(tower, image_size=CHECKER_INPUT, patch_size=8),
        projection_dim=8,
    ))
    with torch.no_grad():
        checker.concept_embeds.normal_()
        checker.special_care_embeds.normal_()
        checker.concept_embeds_weights.fill_(threshold)
        checker.special_care_embeds_weights.fill_(threshold)
    return checker


def _saved_with_checker(folder: Path, threshold: float) -> Path:
    tiny = build_tiny_pipeline()
    pipe = StableDiffusionPipeline(
        **{**tiny.components, "safety_checker": _tiny_safety_checker(threshold),
           "feature_extractor": CLIPImageProcessor(size={"shortest_edge": CHECKER_INPUT},
                                                   crop_size={"height": CHECKER_INPUT, "width": CHECKER_INPUT})},
        requires_safety_checker=True,
    )
    pipe.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def flagging(tmp_path_factory: pytest.TempPathFactory) -> Generator:
    folder = _saved_with_checker(tmp_path_factory.mktemp("checker") / "flags-all", FLAGS_EVERY_IMAGE)
    return load_generator(settings(kind="diffusers", model=str(folder), max_attempts=3))


@pytest.mark.slow
def test_flagged_image_is_rejected_on_every_attempt_and_no_png_exists(flagging: Generator) -> None:
    assert type(flagging.pipe.safety_checker).__name__ == "StableDiffusionSafetyChecker"
    result = flagging.generate(request(flagging.settings, 4))
    assert result.png is None and result.png_sha256 is None and result.provenance is None
    assert [a.guard for a in result.attempts] == ["nsfw"] * 3
    assert [a.seed for a in result.attempts] == [attempt_seed(1234, 4, n) for n in range(3)], "resampled"
    for attempt in result.attempts:
        assert attempt.metrics["nsfw"] == 1.0
        # Sampling and decoding went through their guards first, and what they measured is on record.
        assert {"latent_std", "decoded_min", "decoded_max"} <= set(attempt.metrics)


def test_checker_off_in_settings_accepts_the_image_the_checker_would_blank(flagging: Generator,
                                                                           tiny: Generator) -> None:
    unchecked = flagging.settings.model_copy(update={"safety_checker": False})
    result = flagging.generate(request(unchecked, 4))
    assert result.ok and "nsfw" not in result.metrics
    assert result.provenance["safety_checker"] is False
    assert result.png == tiny.generate(request(tiny.settings, 4)).png


def test_checker_that_flags_nothing_accepts_the_tiny_models_image(tmp_path: Path, tiny: Generator) -> None:
    folder = _saved_with_checker(tmp_path / "flags-none", FLAGS_NO_IMAGE)
    gen = load_generator(settings(kind="diffusers", model=str(folder)))
    result = gen.generate(request(gen.settings, 4))
    assert result.accepted_attempt == 0, [a.reason for a in result.attempts]
    assert result.metrics["nsfw"] == 0.0 and result.provenance["safety_checker"] is True
    assert result.png == tiny.generate(request(tiny.settings, 4)).png
