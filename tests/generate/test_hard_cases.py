"""Two hard cases from the seeds, each with a documented rule under `guards:`: a half-black image (a VAE decode
that failed midway: a black band below a straight cut; rejected as `half_black`) and fp16 banding on a smooth
gradient (luma staircases; reported as `banded`, a warning). Synthetic images that must be caught; photos, the
held-out art corpus, layered avatars and real tiny-model images that must pass. The verdict and the deciding
metric are read from `validate --json`, `audit --json` and `review --json` (the CLI in process)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import skimage.data
from PIL import Image
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.commands import run_collection
from mintprep.guards.image_guards import GuardSettings, check_pixels
from mintprep.state.ledger import Ledger
from tests.conftest import write_collection
from tests.generate.guard_corpus import LEGIT
from tests.support.layered import export_folder, layered_collection

SIDE = 128
GUARDS = GuardSettings()


def cli(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    return result.exit_code, json.loads(result.stdout)


def photo(name: str = "astronaut") -> np.ndarray:
    image = getattr(skimage.data, name)()
    image = np.stack([image] * 3, -1) if image.ndim == 2 else image[..., :3]
    return np.asarray(Image.fromarray(image.astype(np.uint8)).resize((SIDE, SIDE), Image.Resampling.LANCZOS))


def sky(top=(250, 160, 90), bottom=(70, 40, 120)) -> np.ndarray:
    """A smooth sky: a vertical gradient, as an fp32 decode writes it (0-1 levels a row)."""
    t = np.linspace(0, 1, SIDE)[:, None, None]
    return np.broadcast_to((1 - t) * np.array(top) + t * np.array(bottom), (SIDE, SIDE, 3)).round().astype(np.uint8)


def half_black(image: np.ndarray, from_row: int, noisy: bool = False) -> np.ndarray:
    broken = image.copy()
    rows = broken.shape[0] - from_row
    broken[from_row:] = (np.random.default_rng(3).integers(0, 4, (rows, broken.shape[1], 3)) if noisy else 0)
    return broken


def banded(image: np.ndarray, step: int, rows: slice = slice(None)) -> np.ndarray:
    """The region quantized to `step` levels: flat bands with a `step`-level jump between, as fp16 decodes do."""
    out = image.copy()
    out[rows] = (out[rows].astype(np.int16) // step * step).astype(np.uint8)
    return out


def avatar() -> np.ndarray:
    return np.asarray(Image.fromarray(layered_collection().images[1]).resize((SIDE, SIDE), Image.Resampling.NEAREST))


CAUGHT = {
    "smooth sky, bottom half black": (lambda: half_black(sky(), SIDE // 2), "half_black"),
    "photo, bottom 40% near-black noise": (lambda: half_black(photo(), int(SIDE * 0.6), noisy=True), "half_black"),
    "layered avatar, bottom third black": (lambda: half_black(avatar(), SIDE * 2 // 3 - 4), "half_black"),
    "sky banded every 3 levels": (lambda: banded(sky(), 3), "banded"),
    "sky banded every 6 levels over a photo": (lambda: np.concatenate([banded(sky(), 6)[: SIDE // 2],
                                                                       photo()[SIDE // 2:]]), "banded"),
}
PASSING = {**{f"corpus: {name}": make for name, make in LEGIT.items()},
           **{f"photo: {name}": (lambda n=name: photo(n)) for name in ("astronaut", "coffee", "moon", "camera")},
           "smooth sky": sky, "layered avatar": avatar}


def png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("name", list(CAUGHT))
def test_each_hard_case_is_named_with_its_deciding_metric_in_validate_json(name: str, tmp_path: Path) -> None:
    make, expected = CAUGHT[name]
    (tmp_path / "piece.png").write_bytes(png(make()))
    code, result = cli("validate", str(tmp_path / "piece.png"))
    entry = result["images"][0]
    if expected == "half_black":
        assert code == 1 and entry["guard"] == "half_black", entry
        assert entry["decided_by"]["guard"] == "half_black"
        assert entry["decided_by"]["metric"] in ("dark_run_share", "dark_cut")
        assert entry["metrics"]["dark_run_share"] > GUARDS.max_dark_run_share
    else:
        assert code == 0 and entry["ok"], "banding is a warning, never a rejection"
        warning = next(w for w in entry["warnings"] if w["property"] == "banded")
        assert warning["metric"] == "banded_share" and warning["value"] > warning["threshold"] == GUARDS.max_banded_share


@pytest.mark.parametrize("name", list(PASSING))
def test_art_photos_and_gradients_are_neither_half_black_nor_banded(name: str) -> None:
    verdict = check_pixels(PASSING[name](), GUARDS)
    assert verdict.guard != "half_black" and "banded" not in verdict.properties, verdict.metrics


@pytest.mark.slow
def test_real_tiny_model_pieces_pass(tmp_path: Path) -> None:
    path = write_collection(tmp_path / "tiny", size=4, generator__steps=4)
    assert run_collection(load_collection(path)).complete
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        shas = [p.png_sha256 for p in ledger.pieces().values()]
        images = [np.asarray(Image.open(io.BytesIO(ledger.objects.get(sha))).convert("RGB"))[::8, ::8] for sha in shas]
    for rgb in images:
        verdict = check_pixels(rgb, GUARDS)
        assert verdict.ok and "banded" not in verdict.properties, verdict.metrics


def test_audit_and_review_name_them_on_an_imported_collection(tmp_path: Path) -> None:
    corpus = layered_collection()
    images = {t: np.asarray(Image.fromarray(v).resize((SIDE, SIDE), Image.Resampling.NEAREST))
              for t, v in list(corpus.images.items())[:6]}
    images[2] = half_black(images[2], SIDE // 2)
    images[5] = banded(sky(), 3)
    folder = export_folder(tmp_path / "export", {t: corpus.traits[t] for t in images}, images)
    path = write_collection(tmp_path / "col", size=6, generator__upscale=1)
    assert cli("import", str(path), "--from", str(folder))[0] == 0

    code, audit = cli("audit", str(path))
    assert code == 1 and [(p["token_id"], p["kind"], p["evidence"]["guard"]) for p in audit["problems"]] == [
        (2, "image-broken", "half_black")]
    assert audit["problems"][0]["evidence"]["decided_by"]["guard"] == "half_black"
    assert [(w["token_id"], w["metric"]) for w in audit["warnings"] if w["property"] == "banded"] == [
        (5, "banded_share")], "flat-coloured avatars are posterized (also reported), not banded"

    code, review = cli("review", str(path), "-o", str(tmp_path / "review.html"))
    verdicts = {t["token_id"]: t["verdict"] for t in review["tokens"]}
    assert verdicts[2]["guard"] == "half_black" and "banded" in verdicts[5]["properties"]
    sheet = (tmp_path / "review.html").read_text()
    assert "fails half_black" in sheet and "banded" in sheet
