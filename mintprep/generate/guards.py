"""Tensor guards that run inside generation: during sampling, on the final latents, on the decoded tensor.

Each raises `Rejected` carrying the guard's name and the values it measured, so the caller can record the attempt
and decide how to retry. Nothing here writes anything.
"""

from __future__ import annotations

from typing import Any

import torch

from mintprep.base import Rejected
from mintprep.guards import GuardSettings

# Guards whose failure is numeric (a dtype ran out of range), not a bad sample: a higher precision can fix them.
SAMPLING_NUMERIC = frozenset({"latents_nonfinite"})
DECODE_NUMERIC = frozenset({"decoded_nonfinite", "decoded_range"})


def _nonfinite_share(tensor: torch.Tensor) -> float:
    return float((~torch.isfinite(tensor)).float().mean())


class StepGuard:
    """`callback_on_step_end` that watches each sample of the batch for non-finite latents. A sample that goes
    non-finite is rejected on its own (`rejection(i)`), the others sample on: a sample's arithmetic never reads
    another's. When every sample is non-finite it raises, so a NaN at step k costs k steps and no decode.

    Raising is the only way out: diffusers' `pipe._interrupt = True` skips the remaining steps but still decodes."""

    tensor_inputs = ["latents"]

    def __init__(self, samples: int = 1) -> None:
        self._failed: dict[int, Rejected] = {}
        self._samples = samples

    def __call__(self, pipe: Any, step: int, timestep: Any, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        latents = tensors["latents"]
        # One fused reduction and one host sync per step: negligible next to a UNet call.
        finite = torch.isfinite(latents.flatten(1)).all(dim=1).tolist()
        for index, ok in enumerate(finite):
            if not ok and index not in self._failed:
                share = _nonfinite_share(latents[index])
                self._failed[index] = Rejected("latents_nonfinite", f"{share:.1%} of the latents are NaN/inf after "
                                               f"step {step}", {"nonfinite_share": share, "timestep": float(timestep)},
                                               step=step)
        if len(self._failed) == self._samples:
            raise self._failed[min(self._failed)]
        return tensors

    def rejection(self, index: int) -> Rejected | None:
        return self._failed.get(index)


def check_latents(latents: torch.Tensor, guards: GuardSettings) -> dict[str, float]:
    values = latents.detach().float()
    if not bool(torch.isfinite(values).all()):
        share = _nonfinite_share(values)
        raise Rejected("latents_nonfinite", f"{share:.1%} of the final latents are NaN/inf", {"nonfinite_share": share})
    metrics = {"latent_std": round(float(values.std()), 5), "latent_mean": round(float(values.mean()), 5)}
    if not guards.latent_std_min <= metrics["latent_std"] <= guards.latent_std_max:
        raise Rejected("latents_std", f"final latent std {metrics['latent_std']:g} outside "
                       f"[{guards.latent_std_min:g}, {guards.latent_std_max:g}]", metrics)
    return metrics


def check_decoded(image: torch.Tensor, guards: GuardSettings) -> dict[str, float]:
    """`image` is the VAE output in float32, nominally in [-1, 1]."""
    if not bool(torch.isfinite(image).all()):
        share = _nonfinite_share(image)
        raise Rejected("decoded_nonfinite", f"{share:.1%} of the decoded image is NaN/inf",
                       {"nonfinite_share": share})
    low, high = float(image.min()), float(image.max())
    metrics = {"decoded_min": round(low, 5), "decoded_max": round(high, 5)}
    if max(abs(low), abs(high)) > guards.decoded_abs_max:
        raise Rejected("decoded_range", f"decoded values span [{low:.3g}, {high:.3g}], beyond "
                       f"±{guards.decoded_abs_max:g}", metrics)
    return metrics
