"""The uint8 pixel guards: natural photographs pass, failure signatures are rejected, through the library and
through `mintprep validate`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import skimage.data
from PIL import Image
from typer.testing import CliRunner

from mintprep.cli import app
from mintprep.generate.images import encode_png, upscale_nearest
from mintprep.guards.image_guards import GuardSettings, check_pixels, validate_png

PHOTOS = ["astronaut", "camera", "cat", "chelsea", "coffee", "coins", "rocket", "moon", "brick", "grass", "gravel",
          "hubble_deep_field", "immunohistochemistry", "retina", "clock"]
GUARDS = GuardSettings()
runner = CliRunner()


def photo(name: str) -> np.ndarray:
    image = getattr(skimage.data, name)()
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    return np.ascontiguousarray(image[..., :3]).astype(np.uint8)


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def uniform_noise() -> np.ndarray:
    return rng().integers(0, 256, (256, 256, 3), dtype=np.uint8)


def gaussian_noise() -> np.ndarray:
    return np.clip(rng().normal(128, 40, (256, 256, 3)), 0, 255).astype(np.uint8)


def write(folder: Path, name: str, rgb: np.ndarray) -> Path:
    path = folder / f"{name}.png"
    path.write_bytes(encode_png(rgb))
    return path


@pytest.mark.parametrize("name", PHOTOS)
def test_natural_photographs_pass(name: str) -> None:
    verdict = check_pixels(photo(name), GUARDS)
    assert verdict.ok, verdict.reasons


@pytest.mark.parametrize(("image", "guard"), [
    (np.zeros((64, 64, 3), np.uint8), "black"),
    (np.full((64, 64, 3), 255, np.uint8), "white"),
    (np.full((64, 64, 3), 117, np.uint8), "flat"),
    # NaN through numpy's uint8 cast becomes 0, with a sprinkle of finite pixels left: still black.
    (np.where(rng().random((64, 64, 1)) < 0.005, 200, 0).repeat(3, axis=2).astype(np.uint8), "black"),
    (uniform_noise(), "noise"),
    (gaussian_noise(), "noise"),
])
def test_failure_signatures_are_rejected_by_the_first_matching_guard(image: np.ndarray, guard: str) -> None:
    verdict = check_pixels(image, GUARDS)
    assert not verdict.ok
    assert verdict.guard == guard
    assert verdict.reasons[0].startswith(guard)


def test_posterization_is_reported_never_a_rejection() -> None:
    """A photo quantised to 16 grey levels (the banding of a low-bit export, or a palette on purpose)."""
    verdict = check_pixels((photo("camera") // 16 * 16).astype(np.uint8), GUARDS)
    assert verdict.ok and verdict.properties == ("posterized",)
    assert verdict.metrics["empty_level_share"] > GUARDS.max_empty_level_share
    assert check_pixels(photo("camera"), GUARDS).properties == ()


def test_verdict_carries_the_measured_values_it_decided_on() -> None:
    verdict = check_pixels(gaussian_noise(), GUARDS)
    assert verdict.metrics["neighbour_corr"] < GUARDS.min_neighbour_corr
    assert verdict.metrics["hf_ratio"] > GUARDS.max_hf_ratio
    assert f"{verdict.metrics['neighbour_corr']:g}" in verdict.reasons[0]
    assert verdict.decided_by["guard"] == "noise" and verdict.decided_by["margin"] > 0


def test_thresholds_are_settings() -> None:
    flat_ish = np.full((64, 64, 3), 100, np.uint8)
    flat_ish[::2] = 104
    assert check_pixels(flat_ish, GUARDS).guard == "flat"
    permissive = GuardSettings(min_std=1.0, min_neighbour_corr=-1.0, max_hf_ratio=1.0)
    assert check_pixels(flat_ish, permissive).ok


def test_upscale_is_undone_before_judging() -> None:
    noise = uniform_noise()[:64, :64]
    big = encode_png(upscale_nearest(noise, 8))
    assert validate_png(big, GUARDS).ok, "x8 blocks of noise look smooth at full size"
    assert validate_png(big, GUARDS, upscale=8).guard == "noise"


def test_a_fully_transparent_image_is_judged_as_it_shows_not_by_its_hidden_colours() -> None:
    """A viewer sees nothing of an alpha-0 PNG, whatever RGB values sit under the alpha channel."""
    rgba = np.dstack([photo("astronaut"), np.zeros(photo("astronaut").shape[:2], dtype=np.uint8)])
    buffer = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buffer, format="PNG")
    verdict = validate_png(buffer.getvalue(), GUARDS)
    assert not verdict.ok and verdict.guard == "black"


def test_cli_accepts_photos_and_rejects_noise(tmp_path: Path) -> None:
    photos = [write(tmp_path, name, photo(name)) for name in ("astronaut", "coffee")]
    noises = [write(tmp_path, "uniform", uniform_noise()), write(tmp_path, "gaussian", gaussian_noise())]
    ok = runner.invoke(app, ["validate", *map(str, photos), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["ok"] is True
    bad = runner.invoke(app, ["validate", *map(str, photos + noises), "--json"])
    assert bad.exit_code == 1
    report = json.loads(bad.stdout)
    assert [entry["guard"] for entry in report["images"]] == [None, None, "noise", "noise"]
    assert report["images"][2]["metrics"]["neighbour_corr"] < 0.5


def test_cli_names_an_unreadable_file_and_exits_2(tmp_path: Path) -> None:
    not_an_image = tmp_path / "notes.png"
    not_an_image.write_text("hello")
    result = runner.invoke(app, ["validate", str(not_an_image), str(tmp_path / "missing.png")])
    assert result.exit_code == 2
    assert "notes.png" in result.output and "not an image format Pillow can read" in result.output


def test_cli_uses_a_collections_guards(tmp_path: Path) -> None:
    from tests.conftest import write_collection

    grey = np.full((64, 64, 3), 100, np.uint8)
    grey[(np.arange(64) // 8) % 2 == 0] = 104
    image = write(tmp_path, "grey", upscale_nearest(grey, 8))  # as the example collection stores it
    strict = runner.invoke(app, ["validate", str(image)])
    assert strict.exit_code == 1
    collection = write_collection(tmp_path / "col", guards={"min_std": 1.0})
    lenient = runner.invoke(app, ["validate", str(image), "--config", str(collection), "--json"])
    assert lenient.exit_code == 0, lenient.output
    assert json.loads(lenient.stdout)["images"][0]["metrics"]["luma_std"] == pytest.approx(2.0)
    assert Image.open(image).size == (512, 512)


def test_cli_names_the_metric_that_decided(tmp_path: Path) -> None:
    from tests.generate.guard_corpus import BROKEN, LEGIT

    circle = write(tmp_path, "circle", LEGIT["flat red circle"]())
    tiles = write(tmp_path, "tiles", BROKEN["NaN-black tiles over a photo"][0]())
    result = runner.invoke(app, ["validate", str(circle), str(tiles)])
    assert result.exit_code == 1
    text = " ".join(result.output.split())  # rich wraps at the terminal width
    assert "ok; nearest guard " in text and "; posterized" in text
    assert "rejected (dead_tiles: dead_tile_share" in text and "fired dead_tiles: dead_tile_share" in text
    report = json.loads(runner.invoke(app, ["validate", str(tiles), "--json"]).stdout)["images"][0]
    assert report["decided_by"]["metric"] == "dead_tile_share" and report["decided_by"]["margin"] > 0
