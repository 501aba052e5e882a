"""Per-component precision and the fallback ladder.

A rung maps every component to a dtype. Rung 0 is the configured precision; each fallback entry gives the next rung
by raising every component to at least that precision (fp16 < bf16 < fp32: bf16 has fp32's exponent range, so it
cures overflow, and fp32 cures the rest). Rungs never lower a component, and rungs that change nothing are dropped.
"""

from __future__ import annotations

import torch

from mintprep.generate.settings import GeneratorSettings, Precision

DTYPES: dict[str, torch.dtype] = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
NAMES: dict[torch.dtype, str] = {dtype: name for name, dtype in DTYPES.items()}
RANK = {"fp16": 0, "bf16": 1, "fp32": 2}

Rung = dict[str, Precision]


def configured_precision(settings: GeneratorSettings, components: list[str]) -> Rung:
    spec = settings.precision
    if isinstance(spec, str):
        return {name: spec for name in components}
    default = spec.get("default", "fp32")
    return {name: spec.get(name, default) for name in components}


def precision_ladder(settings: GeneratorSettings, components: list[str]) -> list[Rung]:
    rungs = [configured_precision(settings, components)]
    for floor in settings.fallback:
        rung = {name: max(current, floor, key=RANK.__getitem__) for name, current in rungs[-1].items()}
        if rung != rungs[-1]:
            rungs.append(rung)
    return rungs


def next_rung_raising(ladder: list[Rung], current: int, component: str) -> int | None:
    """The first rung above `current` that gives `component` a higher precision, or None at the top."""
    for index in range(current + 1, len(ladder)):
        if RANK[ladder[index][component]] > RANK[ladder[current][component]]:
            return index
    return None
