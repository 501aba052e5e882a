"""The pixel guards against a corpus of legitimate art in many styles and of broken decodes (tests/generate/
guard_corpus.py): every legitimate piece passes, every broken one fails on the guard named for it. The margin of
the metric that decided is printed for each (`pytest -s`), so a threshold change shows how close it cuts."""

from __future__ import annotations

import numpy as np
import pytest

from mintprep.guards.image_guards import GuardSettings, check_pixels
from tests.generate.guard_corpus import BROKEN, LEGIT

GUARDS = GuardSettings()


def _line(kind: str, name: str, verdict) -> str:  # noqa: ANN001
    d = verdict.decided_by
    return (f"{kind:6s} {name:34s} {d['guard']:10s} {d['metric']:18s} {d['value']:>9g} vs {d['threshold']:<7g} "
            f"margin {d['margin']:+.1%}")


def test_the_corpus_is_big_enough_and_seeded() -> None:
    assert len(LEGIT) >= 12 and len({guard for _, guard in BROKEN.values()}) >= 6 and len(BROKEN) >= 10
    for make in [*LEGIT.values(), *(make for make, _ in BROKEN.values())]:
        assert np.array_equal(make(), make()), "corpus images must be reproducible"


@pytest.mark.parametrize("name", list(LEGIT))
def test_every_legitimate_style_passes(name: str) -> None:
    verdict = check_pixels(LEGIT[name](), GUARDS)
    print(_line("legit", name, verdict))
    assert verdict.ok, verdict.reasons
    assert verdict.decided_by["margin"] < 0, "a pass is on the safe side of the nearest guard"


@pytest.mark.parametrize("name", list(BROKEN))
def test_every_broken_kind_fails_on_its_guard(name: str) -> None:
    make, guard = BROKEN[name]
    verdict = check_pixels(make(), GUARDS)
    print(_line("broken", name, verdict))
    assert not verdict.ok
    assert verdict.guard == guard, verdict.reasons
    assert verdict.decided_by["guard"] == guard and verdict.decided_by["margin"] > 0


def test_the_issues_red_circle_is_not_flat_but_is_reported_posterized() -> None:
    verdict = check_pixels(LEGIT["flat red circle"](), GUARDS)
    assert verdict.ok and "posterized" in verdict.properties
    assert verdict.metrics["levels"] == 2


def test_each_new_guard_is_a_setting() -> None:
    """Loosening the setting that decided lets the broken piece through: the thresholds are the config keys."""
    for name, setting, loose in [("NaN-black tiles over a photo", "max_dead_tile_share", 1.0),
                                 ("one colour with a thin border", "border_share", 0.001),
                                 ("black with single-pixel speckle", "min_feature_share", 0.0)]:
        image = BROKEN[name][0]()
        assert not check_pixels(image, GUARDS).ok
        verdict = check_pixels(image, GUARDS.model_copy(update={setting: loose}))
        assert verdict.guard != BROKEN[name][1], (name, verdict.reasons)
