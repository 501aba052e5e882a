"""generator.scheduler / scheduler_config checked when the file is loaded, not when the model is.

diffusers (and torch) are imported only for a collection that names a scheduler or overrides its
config; building the scheduler once with the overrides is what proves their values (an unknown
`beta_schedule` raises in the constructor). Unknown keys are refused here: diffusers would only warn.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from typing import Any

MAX_TRAIN_TIMESTEPS = 100_000  # the constructor allocates arrays this long
_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*Scheduler")


def check_scheduler_name(name: str) -> str:
    """`name` when diffusers has a scheduler class by that name; ValueError listing the ones it has."""
    if not _CLASS_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a diffusers scheduler class name (such as EulerDiscreteScheduler)")
    classes = _scheduler_classes()
    if name not in classes:
        import diffusers  # noqa: PLC0415 - already imported by _scheduler_classes

        raise ValueError(f"{name!r} is not a scheduler class of diffusers {diffusers.__version__}; it has "
                         f"{', '.join(sorted(classes))}")
    return name


def check_scheduler_config(name: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """`overrides` when `name` (or, with no name, some diffusers scheduler) accepts every key and value."""
    for key, value in overrides.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{key}: must be a finite number, got {value}")
    steps = overrides.get("num_train_timesteps", 1000)
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_TRAIN_TIMESTEPS:
        raise ValueError(f"num_train_timesteps: must be an integer from 1 to {MAX_TRAIN_TIMESTEPS}, got {steps!r}")
    classes = _scheduler_classes()
    candidates = [classes[name]] if name in classes else list(classes.values())
    known = set().union(*(inspect.signature(cls.__init__).parameters for cls in candidates)) - {"self"}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"{', '.join(map(repr, unknown))}: not a setting of {name or 'any diffusers scheduler'}")
    if name in classes:
        try:
            classes[name](**overrides)
        except Exception as exc:  # noqa: BLE001 - diffusers raises NotImplementedError, ValueError, TypeError...
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise ValueError(f"{name} refuses these values: {first}") from None
    return overrides


@functools.cache
def _scheduler_classes() -> dict[str, type]:
    import diffusers  # noqa: PLC0415 - torch comes with it: only for collections that set a scheduler
    from diffusers import SchedulerMixin  # noqa: PLC0415

    classes = {}
    for cls_name in dir(diffusers):
        if _CLASS_NAME.fullmatch(cls_name):
            try:
                cls = getattr(diffusers, cls_name)
            except Exception:  # noqa: BLE001 - a scheduler whose optional backend (flax, scipy) is missing
                continue
            if inspect.isclass(cls) and issubclass(cls, SchedulerMixin):
                classes[cls_name] = cls
    return classes
