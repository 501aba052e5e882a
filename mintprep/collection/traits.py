"""Which traits each token gets and the prompt they make: a pure function of the collection spec.

A token's draw depends only on (collection seed, token id, trait name), so adding a trait value or
changing one piece's override never reshuffles the other pieces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mintprep.collection.config import CollectionSpec
from mintprep.collection.recipe import LoggedRecipe
from mintprep.collection.template import render
from mintprep.collection.token_range import token_ids

SeedFrom = Literal["yaml", "logged", "new-seed"]
# How reports name where a piece's seed came from.
SEED_FROM_WORDS: dict[str, str] = {"logged": "from the creator's logged recipe", "yaml": "from pieces.<id>.seed",
                                   "new-seed": "a new seed: no recipe logged for this token"}


@dataclass(frozen=True)
class PiecePlan:
    token_id: int
    traits: tuple[tuple[str, str], ...]  # (trait name, value) in the order the YAML declares them
    prompt: str
    negative_prompt: str
    seed: int | None = None  # the creator's seed for the piece's first attempt; None: derived from the collection's
    seed_from: SeedFrom = "new-seed"  # which recipe gave the seed: pieces.<id>.seed, the generation log, neither
    logged_sampling: tuple[tuple[str, Any], ...] = ()  # generator settings the generation log gave the piece

    @property
    def attributes(self) -> list[dict[str, str]]:
        return [{"trait_type": name, "value": value} for name, value in self.traits]


def _unit_interval(*parts: object) -> float:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def draw_trait(seed: int, token_id: int, trait: str, weights: dict[str, float]) -> str:
    # Values are walked in sorted order so that reformatting the YAML (key order) changes no draw.
    ordered = sorted(weights.items())
    point = _unit_interval("trait", seed, token_id, trait) * sum(weights.values())
    running = 0.0
    for value, weight in ordered:
        running += weight
        if point < running:
            return value
    return ordered[-1][0]  # float rounding at the very top of the range


def plan_piece(spec: CollectionSpec, token_id: int, published: list[tuple[str, str]] | None = None,
               logged: LoggedRecipe | None = None) -> PiecePlan:
    """`published`: the traits an imported token's metadata carries; they stand in for the draw (and a trait the
    yaml declares but the metadata lacks is drawn). `logged`: the piece's line of the creator's generation log;
    its prompt, negative, seed and sampling stand in for the collection's. `pieces:` overrides win over both."""
    override = spec.pieces.get(token_id)
    drawn = {name: draw_trait(spec.seed, token_id, name, weights) for name, weights in spec.prompt.traits.items()}
    chosen = dict(published) if published is not None else dict(drawn)
    if override is not None:
        chosen.update(override.traits)
    prompt = (override.prompt if override and override.prompt else logged.prompt if logged and logged.prompt
              else render(spec.prompt.template, {**drawn, **chosen}))
    negative = next(value for value in (override.negative if override else None,
                                        logged.negative if logged else None, spec.prompt.negative) if value is not None)
    seed: int | None = None
    seed_from: SeedFrom = "new-seed"
    if override and override.seed is not None:
        seed, seed_from = override.seed, "yaml"
    elif logged and logged.seed is not None:
        seed, seed_from = logged.seed, "logged"
    return PiecePlan(token_id, tuple(chosen.items()), prompt, negative, seed, seed_from,
                     logged.sampling if logged else ())


def plan_seed(plan: PiecePlan, first_attempt: int) -> tuple[int | None, SeedFrom]:
    """(seed, which recipe gave it): the creator's seed when the piece starts from its first attempt; (None,
    "new-seed") once a resample or repair has moved past it (the same seed would make the same rejected image
    again), so its seeds are derived from then on."""
    return (plan.seed, plan.seed_from) if first_attempt == 0 and plan.seed is not None else (None, "new-seed")


def plan_collection(spec: CollectionSpec, published: Mapping[int, list[tuple[str, str]]] | None = None,
                    logged: Mapping[int, LoggedRecipe] | None = None) -> list[PiecePlan]:
    """Every token's plan; `published`: imported tokens' traits (as the ledger's imports record them); `logged`:
    the creator's generation log (mintprep.collection.recipe.read_recipe_log).

    A collection imported from a 0-indexed source kept its token 0, so its ids run 0..size-1."""
    published, logged = published or {}, logged or {}
    return [plan_piece(spec, token_id, published=published.get(token_id), logged=logged.get(token_id))
            for token_id in token_ids(spec.size, 0 in published)]
