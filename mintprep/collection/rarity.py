"""Rarity: how the drawn traits compare with their configured weights, and how rare each token is.

- Per trait, the realized count of every value against count x weight / sum(weights), with Pearson's chi-square
  goodness-of-fit test (k - 1 degrees of freedom). A p-value below `FLAG_P` says the draws look wrong for the
  weights (a bug in the draw). Values fixed by `pieces:` are left out of the test and counted apart. With expected counts
  under 5 the chi-square approximation is rough, and the report says so.
- Per token, the information content score OpenRarity uses: the sum over traits of -log2(share of tokens with the
  token's value), divided by the collection's entropy (the sum of the traits' entropies), so 1.0 is an average
  token and higher is rarer. Ranks are 1 = rarest, tied scores share a rank (competition ranking). Every token has
  every trait here, so OpenRarity's "trait count" meta-trait and null values add nothing and are left out.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from mintprep.collection.config import CollectionSpec
from mintprep.collection.traits import PiecePlan, plan_collection

FLAG_P = 0.01


@dataclass(frozen=True)
class TraitFit:
    trait: str
    counts: dict[str, int]
    expected: dict[str, float]
    chi_square: float
    dof: int
    p_value: float
    overridden: int  # tokens whose value is fixed by `pieces:` rather than drawn

    @property
    def flagged(self) -> bool:
        return self.dof > 0 and self.p_value < FLAG_P

    @property
    def low_expected(self) -> bool:
        return min(self.expected.values()) < 5

    def to_json(self) -> dict[str, Any]:
        return {"trait": self.trait, "counts": self.counts, "expected": {k: round(v, 3) for k, v in self.expected.items()},
                "chi_square": round(self.chi_square, 4), "dof": self.dof, "p_value": round(self.p_value, 6),
                "flagged": self.flagged, "low_expected_counts": self.low_expected, "overridden": self.overridden}


@dataclass(frozen=True)
class TokenRarity:
    token_id: int
    score: float
    rank: int


@dataclass(frozen=True)
class RarityReport:
    traits: list[TraitFit]
    tokens: list[TokenRarity]
    method: str = ("chi-square goodness of fit per trait (p < 0.01 flagged); token score = OpenRarity information "
                   "content: sum of -log2(value share) / collection entropy; rank 1 = rarest")

    @property
    def flagged(self) -> list[str]:
        return [fit.trait for fit in self.traits if fit.flagged]

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "flagged": self.flagged, "traits": [fit.to_json() for fit in self.traits],
                "tokens": [{"token_id": t.token_id, "score": round(t.score, 6), "rank": t.rank} for t in self.tokens]}


def rarity_report(spec: CollectionSpec, plans: list[PiecePlan] | None = None) -> RarityReport:
    plans = plan_collection(spec) if plans is None else plans
    return RarityReport(traits=[trait_fit(spec, plans, trait) for trait in spec.prompt.traits],
                        tokens=token_rarity(plans))


def trait_fit(spec: CollectionSpec, plans: list[PiecePlan], trait: str) -> TraitFit:
    weights = spec.prompt.traits[trait]
    # A value fixed by `pieces:` was chosen, not drawn: the test is over the drawn tokens (the fixed are counted apart).
    drawn = [plan for plan in plans if trait not in getattr(spec.pieces.get(plan.token_id), "traits", {})]
    chosen = Counter(dict(plan.traits)[trait] for plan in drawn)
    total_weight = sum(weights.values())
    counts = {value: chosen.get(value, 0) for value in sorted(weights)}
    expected = {value: len(drawn) * weights[value] / total_weight for value in sorted(weights)}
    statistic = sum((counts[v] - expected[v]) ** 2 / expected[v] for v in counts if expected[v])
    dof = len(weights) - 1
    overridden = len(plans) - len(drawn)
    return TraitFit(trait, counts, expected, statistic, dof, chi_square_sf(statistic, dof) if dof else 1.0, overridden)


def token_rarity(plans: list[PiecePlan]) -> list[TokenRarity]:
    n = len(plans)
    shares: dict[tuple[str, str], float] = {
        key: count / n for key, count in Counter(pair for plan in plans for pair in plan.traits).items()}
    entropy = 0.0
    for trait in {name for plan in plans for name, _ in plan.traits}:
        entropy -= sum(p * math.log2(p) for (name, _), p in shares.items() if name == trait)
    raw = {plan.token_id: sum(-math.log2(shares[pair]) for pair in plan.traits) for plan in plans}
    scores = {t: (value / entropy if entropy > 0 else 0.0) for t, value in raw.items()}
    ordered = sorted(scores, key=lambda t: (-round(scores[t], 9), t))
    ranks: dict[int, int] = {}
    for position, token_id in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        tied = previous is not None and round(scores[previous], 9) == round(scores[token_id], 9)
        ranks[token_id] = ranks[previous] if tied else position
    return [TokenRarity(t, scores[t], ranks[t]) for t in sorted(scores)]


def chi_square_sf(x: float, dof: int) -> float:
    """P(X >= x) for X ~ chi-square(dof): the regularised upper incomplete gamma Q(dof / 2, x / 2)."""
    if x <= 0:
        return 1.0
    return _upper_gamma_q(dof / 2.0, x / 2.0)


def _upper_gamma_q(a: float, x: float) -> float:
    """Q(a, x) by its series (x < a + 1) or Lentz's continued fraction (otherwise), as in Numerical Recipes §6.2."""
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h
