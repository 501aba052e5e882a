"""Rarity: how the drawn traits compare with their configured weights, and how rare each token is.

- Per trait, the realized count of every value against count x weight / sum(weights), with Pearson's chi-square
  goodness-of-fit test (k - 1 degrees of freedom), over the values mintprep drew only. A p-value below `FLAG_P`
  says the draws look wrong for the weights (a bug in the draw). Values fixed by `pieces:` are left out of the test
  and counted apart. With expected counts under 5 the chi-square approximation is rough, and the report says so.
- Imported tokens carry the traits their published metadata says; nothing drew them. The same test over them
  says only whether what was published matches the configured weights ("as published"), never that draws are
  wrong; values the yaml does not configure are counted apart.
- Per token, the information content score OpenRarity uses: the sum over traits of -log2(share of tokens with the
  token's value), divided by the collection's entropy (the sum of the traits' entropies), so 1.0 is an average
  token and higher is rarer. Ranks are 1 = rarest, tied scores share a rank (competition ranking). Every token has
  every trait here, so OpenRarity's "trait count" meta-trait and null values add nothing and are left out (an
  imported token lacking a trait others carry counts it as the value null, as OpenRarity does).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Collection
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
    source: str = "drawn"  # drawn: values mintprep drew; published: values imported tokens' metadata carries
    unconfigured: dict[str, int] = field(default_factory=dict)  # published values the yaml has no weight for

    @property
    def departs(self) -> bool:
        """The values depart from the weights (p < FLAG_P, or a value the yaml does not know)."""
        return (self.dof > 0 and self.p_value < FLAG_P) or bool(self.unconfigured)

    @property
    def flagged(self) -> bool:
        """The draws look wrong: only drawn values can."""
        return self.source == "drawn" and self.departs

    @property
    def low_expected(self) -> bool:
        return min(self.expected.values()) < 5

    def to_json(self) -> dict[str, Any]:
        return {"trait": self.trait, "counts": self.counts, "expected": {k: round(v, 3) for k, v in self.expected.items()},
                "chi_square": round(self.chi_square, 4), "dof": self.dof, "p_value": round(self.p_value, 6),
                "flagged": self.flagged, "departs": self.departs, "low_expected_counts": self.low_expected,
                "overridden": self.overridden, "source": self.source, "unconfigured": self.unconfigured}


@dataclass(frozen=True)
class TokenRarity:
    token_id: int
    score: float
    rank: int


@dataclass(frozen=True)
class RarityReport:
    traits: list[TraitFit]  # over drawn values (absent when every token is imported)
    tokens: list[TokenRarity]
    published: list[TraitFit] = field(default_factory=list)  # over imported tokens' published values
    method: str = ("chi-square goodness of fit per trait over drawn values (p < 0.01 flagged), and over published "
                   "values of imported tokens (reported as published); token score = OpenRarity information "
                   "content: sum of -log2(value share) / collection entropy; rank 1 = rarest")

    @property
    def flagged(self) -> list[str]:
        return [fit.trait for fit in self.traits if fit.flagged]

    @property
    def published_departs(self) -> list[str]:
        return [fit.trait for fit in self.published if fit.departs]

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "flagged": self.flagged, "traits": [fit.to_json() for fit in self.traits],
                "published_departs": self.published_departs, "published": [fit.to_json() for fit in self.published],
                "tokens": [{"token_id": t.token_id, "score": round(t.score, 6), "rank": t.rank} for t in self.tokens]}


def rarity_report(spec: CollectionSpec, plans: list[PiecePlan] | None = None,
                  imported: Collection[int] = ()) -> RarityReport:
    """`plans`: every token's traits (an imported token's as published); `imported`: the ids whose traits came
    from published metadata rather than a draw."""
    plans = plan_collection(spec) if plans is None else plans
    drawn = [plan for plan in plans if plan.token_id not in imported]
    published = [plan for plan in plans if plan.token_id in imported]
    return RarityReport(traits=[trait_fit(spec, drawn, trait) for trait in spec.prompt.traits] if drawn else [],
                        tokens=token_rarity(plans),
                        published=[trait_fit(spec, published, trait, source="published")
                                   for trait in spec.prompt.traits] if published else [])


def trait_fit(spec: CollectionSpec, plans: list[PiecePlan], trait: str, source: str = "drawn") -> TraitFit:
    weights = spec.prompt.traits[trait]
    # A value fixed by `pieces:` was chosen, not drawn: the test is over the drawn tokens (the fixed are counted apart).
    drawn = [plan for plan in plans if trait not in getattr(spec.pieces.get(plan.token_id), "traits", {})]
    chosen = Counter(dict(plan.traits).get(trait) for plan in drawn)
    chosen.pop(None, None)  # published metadata without this trait
    total_weight = sum(weights.values())
    counts = {value: chosen.get(value, 0) for value in sorted(weights)}
    unconfigured = {value: n for value, n in sorted(chosen.items()) if value not in weights}
    fitted = sum(counts.values())
    expected = {value: fitted * weights[value] / total_weight for value in sorted(weights)}
    statistic = sum((counts[v] - expected[v]) ** 2 / expected[v] for v in counts if expected[v])
    dof = len(weights) - 1
    overridden = len(plans) - len(drawn)
    return TraitFit(trait, counts, expected, statistic, dof, chi_square_sf(statistic, dof) if dof else 1.0, overridden,
                    source, unconfigured)


def token_rarity(plans: list[PiecePlan]) -> list[TokenRarity]:
    n = len(plans)
    names = sorted({name for plan in plans for name, _ in plan.traits})
    # Every token gets every trait; one its metadata lacks is the value None (OpenRarity's null attribute).
    traits = {plan.token_id: [(name, dict(plan.traits).get(name)) for name in names] for plan in plans}
    shares: dict[tuple[str, str | None], float] = {
        key: count / n for key, count in Counter(pair for pairs in traits.values() for pair in pairs).items()}
    entropy = 0.0
    for trait in names:
        entropy -= sum(p * math.log2(p) for (name, _), p in shares.items() if name == trait)
    raw = {t: sum(-math.log2(shares[pair]) for pair in pairs) for t, pairs in traits.items()}
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
