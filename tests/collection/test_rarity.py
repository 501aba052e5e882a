"""Rarity: the chi-square survival function agrees with scipy's, a collection drawn from its weights passes the
goodness-of-fit test while one whose draws ignore the weights is flagged, and information-content ranks put the
token with the rarest traits first."""

from __future__ import annotations

import itertools

import pytest
from scipy.stats import chi2

from mintprep.collection.config import parse_collection
from mintprep.collection.rarity import chi_square_sf, rarity_report
from mintprep.collection.traits import PiecePlan


def spec(size: int, traits: dict, pieces: dict | None = None):  # noqa: ANN201
    import yaml

    return parse_collection(yaml.safe_dump({"name": "R", "symbol": "R", "size": size, "seed": 5, "pieces": pieces or {},
                                            "prompt": {"template": "x", "traits": traits}}))


@pytest.mark.parametrize(("x", "dof"), list(itertools.product([0.01, 0.7, 2.0, 5.5, 12.0, 40.0, 250.0],
                                                                [1, 2, 3, 5, 10, 40])))
def test_chi_square_survival_matches_scipy(x: float, dof: int) -> None:
    assert chi_square_sf(x, dof) == pytest.approx(chi2.sf(x, dof), rel=1e-9, abs=1e-300)


def test_draws_from_the_weights_pass_and_draws_that_ignore_them_are_flagged() -> None:
    collection = spec(2000, {"hat": {"none": 8, "cap": 1, "crown": 1}})
    report = rarity_report(collection)
    (fit,) = report.traits
    assert sum(fit.counts.values()) == 2000 and fit.expected == {"cap": 200.0, "crown": 200.0, "none": 1600.0}
    assert fit.p_value > 0.01 and report.flagged == []
    # The same weights, but every draw replaced by a uniform pick: realized counts ~667 each.
    values = ["none", "cap", "crown"]
    plans = [PiecePlan(t, (("hat", values[t % 3]),), "x", "") for t in range(1, 2001)]
    wrong = rarity_report(collection, plans)
    assert wrong.flagged == ["hat"] and wrong.traits[0].p_value < 1e-10


def test_overrides_are_counted_and_the_rarest_token_ranks_first() -> None:
    collection = spec(50, {"hat": {"none": 20, "crown": 1}, "eyes": {"blue": 1, "red": 1}},
                      pieces={7: {"traits": {"hat": "crown"}}})
    report = rarity_report(collection)
    fits = {fit.trait: fit for fit in report.traits}
    assert fits["hat"].overridden == 1 and fits["eyes"].overridden == 0
    assert sum(fits["hat"].counts.values()) == 49 and sum(fits["eyes"].counts.values()) == 50, "a fixed value is no draw"
    from mintprep.collection.traits import plan_collection

    crowned = {p.token_id for p in plan_collection(collection) if dict(p.traits)["hat"] == "crown"}
    ranks = {t.token_id: t.rank for t in report.tokens}
    assert 7 in crowned and ranks[7] <= len(crowned)
    assert all(t in crowned for t, rank in ranks.items() if rank == 1)
    assert abs(sum(t.score for t in report.tokens) / len(report.tokens) - 1.0) < 1e-9, "1.0 is the average token"
