"""A loaded text-to-image pipeline and the guarded generation of one piece.

Per attempt, cheapest guard first, all before any PNG exists:
1. sampling with `output_type="latent"` and a step callback that raises on non-finite latents;
2. the final latents: finite, std band;
3. mintprep's own decode (latents cast to the VAE dtype, the VAE's scaling/shift factors): finite, in range;
4. the safety checker, when the model has one: a flagged image is a rejection;
5. the uint8 pixel guards (black, white, flat, border, dead tiles, noise).
Only an image that passed all of them is upscaled and encoded.

Retries: sampling attempt n uses `attempt_seed(collection_seed, token_id, n)`, the first one the request's own seed
when it has one (the creator's). A numeric failure climbs the precision ladder: in sampling, the next attempt runs
one rung up (with the creator's seed again while it is in use: their image, in a precision that holds it); in the
VAE, the same latents are decoded again on the next rung that raises the VAE's precision (no resampling). Any other
rejection resamples with the next derived seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from mintprep.base import MintprepError, canonical_json, sha256_hex
from mintprep.generate import guards as tensor_guards
from mintprep.generate.environment import device_facts
from mintprep.generate.fingerprint import probe_environment
from mintprep.generate.machine import numeric_versions
from mintprep.generate.guards import DECODE_NUMERIC, SAMPLING_NUMERIC, Rejected, StepGuard
from mintprep.generate.images import encode_png, to_uint8, upscale_nearest
from mintprep.generate.key import (PIECE_FIELDS, batch_position, call_of, check_compatible,
                                   request_key as compose_request_key)
from mintprep.generate.precision import DTYPES, NAMES, Rung, next_rung_raising, precision_ladder
from mintprep.generate.request import AttemptRecord, GenerationRequest, GenerationResult, attempt_seed
from mintprep.generate.settings import GeneratorSettings
from mintprep.guards import GuardSettings, check_pixels, thumbnail_png

DENOISERS = ("unet", "transformer")


@dataclass(frozen=True)
class LoadedModel:
    """A pipeline fresh from its weights, and where those weights came from (for provenance)."""

    pipe: Any  # a diffusers DiffusionPipeline
    source: dict[str, Any]
    files_fingerprint: str  # mintprep.generate.fingerprint.model_fingerprint: what request keys hold


@dataclass(frozen=True)
class Sampled:
    """One sample of a pipeline call: its final latents and their measurements, or why it was rejected."""

    latents: torch.Tensor | None = None
    metrics: dict[str, float] | None = None
    rejected: Rejected | None = None

    def result(self) -> tuple[torch.Tensor, dict[str, float]]:
        if self.rejected is not None:
            raise self.rejected
        assert self.latents is not None and self.metrics is not None
        return self.latents, self.metrics


@dataclass(frozen=True)
class _Decoded:
    rgb: np.ndarray
    metrics: dict[str, float]


class Generator:
    """Holds one pipeline; `generate` is a pure function of the request (no disk, no ledger)."""

    def __init__(self, settings: GeneratorSettings, model: LoadedModel, device: torch.device):
        self.settings = settings
        self.pipe = model.pipe
        self.source = model.source
        self.device = device
        self.modules: dict[str, torch.nn.Module] = {
            name: module for name, module in self.pipe.components.items() if isinstance(module, torch.nn.Module)
        }
        self._masters: dict[str, dict[str, torch.Tensor]] = {}
        for name, module in self.modules.items():
            # Dropout in train mode is one of the known causes of black output; gradients only cost memory.
            module.eval()
            module.requires_grad_(False)
        # Walking named_modules() for every piece cost ~2% of a tiny-model piece; the module tree is fixed at load.
        self._submodules = {name: list(module.named_modules()) for name, module in self.modules.items()}
        self.denoiser = next((self.modules[name] for name in DENOISERS if name in self.modules), None)
        if self.denoiser is None or "vae" not in self.modules:
            raise MintprepError(f"{type(self.pipe).__name__} has no unet/transformer and vae: not a latent "
                                "text-to-image pipeline mintprep can guard")
        self.denoiser.register_forward_pre_hook(_cast_inputs_to_own_dtype, with_kwargs=True)
        self.pipe.set_progress_bar_config(disable=True)
        self.stored_dtypes = {name: NAMES.get(_dtype_of(module), "other") for name, module in self.modules.items()}
        self.fingerprint = _fingerprint(self.modules, self.pipe)
        self.files_fingerprint = model.files_fingerprint
        # Cast before moving: a small GPU may hold the model in fp16 but not in the fp32 it was loaded in.
        self._set_precision(precision_ladder(settings, list(self.modules))[0])
        self._place()

    # -- public --------------------------------------------------------------------------------

    def request_key(self, request: GenerationRequest) -> str:
        """The driver's cache key for the piece (mintprep.generate.key), as this process would generate it."""
        self._check_compatible(request.settings)
        return compose_request_key(request, self.files_fingerprint, self.key_environment())

    def key_environment(self) -> dict[str, Any]:
        return probe_environment(self.settings.device)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        [result] = self.generate_batch([request])
        return result

    def generate_batch(self, requests: list[GenerationRequest]) -> list[GenerationResult]:
        """Pieces that share their sampling settings and their batch (`batch_of`), one result each, in order.

        Their first attempts are sampled in one pipeline call of `batch_size` samples, each piece at its own position
        (`batch_position`; positions without a piece sample a copy of the first one, whose result is discarded).
        Every later attempt of a piece runs alone. A sample that fails a guard rejects only its own piece."""
        for request in requests:
            self._check_compatible(request.settings)
        self._assert_inference_ready()
        size = self.settings.batch_size
        first = requests[0]
        if len({call_of(request) for request in requests}) != 1 or len({r.token_id for r in requests}) != len(requests):
            raise ValueError("a batch takes distinct pieces of one batch (token_id // batch_size) with the same "
                             "settings; see mintprep.generate.key.calls")
        if size == 1:
            return [self._attempts(first, None)]
        slots = [first] * size
        for request in requests:
            slots[batch_position(request, size)] = request
        ladder = precision_ladder(first.settings, list(self.modules))
        with torch.inference_mode():
            self._set_precision(ladder[0])
            sampled = self._sample_batch(slots, first.guards)
        return [self._attempts(request, sampled[batch_position(request, size)]) for request in requests]

    def _attempts(self, request: GenerationRequest, presampled: Sampled | None) -> GenerationResult:
        """The attempts of one piece; `presampled` is its first attempt when it was sampled in a batch."""
        settings, guards = request.settings, request.guards
        ladder = precision_ladder(settings, list(self.modules))
        rung, attempt, records = 0, request.first_attempt, []
        batch = {"size": self.settings.batch_size, "position": batch_position(request, self.settings.batch_size)}
        own_seed = request.seed  # None once a rejection that a higher precision does not cure has moved past it
        with torch.inference_mode():
            for number in range(settings.max_attempts):
                seed = attempt_seed(request.collection_seed, request.token_id, attempt) if own_seed is None else own_seed
                self._set_precision(ladder[rung])
                try:
                    if number == 0 and presampled is not None:
                        latents, latent_metrics = presampled.result()
                    else:
                        batch = {"size": 1, "position": 0}
                        latents, latent_metrics = self._sample(request, seed, guards)
                except Rejected as rejected:
                    records.append(_record(attempt, seed, ladder[rung], rejected))
                    attempt += 1
                    if rejected.guard in SAMPLING_NUMERIC and rung + 1 < len(ladder):
                        rung += 1
                    else:
                        own_seed = None
                    continue
                sampled_attempt = attempt
                while True:
                    try:
                        decoded = self._decode_and_check(latents, request, guards)
                    except Rejected as rejected:
                        redecode_of = None if attempt == sampled_attempt else sampled_attempt
                        records.append(_record(attempt, seed, ladder[rung], rejected, redecode_of, latent_metrics))
                        attempt += 1
                        higher = next_rung_raising(ladder, rung, "vae") if rejected.guard in DECODE_NUMERIC else None
                        if higher is None:
                            own_seed = None
                            break
                        rung = higher
                        self._set_precision(ladder[rung])
                        continue
                    metrics = {**latent_metrics, **decoded.metrics}
                    records.append(AttemptRecord(attempt=attempt, seed=seed, precision=dict(ladder[rung]),
                                                 metrics=metrics,
                                                 redecode_of=None if attempt == sampled_attempt else sampled_attempt))
                    return self._accepted(request, records, attempt, seed, ladder[rung], decoded, metrics, batch)
        return GenerationResult(token_id=request.token_id, attempts=records)

    # -- stages --------------------------------------------------------------------------------

    def _sample(self, request: GenerationRequest, seed: int,
                guards: GuardSettings) -> tuple[torch.Tensor, dict[str, float]]:
        return self._run_pipeline([request], [seed], guards)[0].result()

    def _sample_batch(self, slots: list[GenerationRequest], guards: GuardSettings) -> list[Sampled]:
        seeds = [r.first_seed() for r in slots]
        return self._run_pipeline(slots, seeds, guards)

    def _run_pipeline(self, requests: list[GenerationRequest], seeds: list[int],
                      guards: GuardSettings) -> list[Sampled]:
        """One pipeline call, a sample per request; each sample's latents checked on its own."""
        settings = requests[0].settings
        step_guard = StepGuard(len(requests))
        try:
            output = self.pipe(
                prompt=[r.prompt for r in requests], negative_prompt=[r.negative_prompt for r in requests],
                num_inference_steps=settings.steps, guidance_scale=settings.guidance,
                height=settings.height, width=settings.width,
                # One CPU generator per piece: the same seed gives the same noise on every device and in any batch.
                generator=[torch.Generator("cpu").manual_seed(seed) for seed in seeds],
                output_type="latent", callback_on_step_end=step_guard,
                callback_on_step_end_tensor_inputs=step_guard.tensor_inputs,
            )
        except Rejected as rejected:  # every sample went non-finite: the call stopped early
            return [Sampled(rejected=rejected) for _ in requests]
        finally:
            # An aborted call skips the pipeline's own offload clean-up.
            self.pipe.maybe_free_model_hooks()
        sampled = []
        for index, latents in enumerate(output.images.split(1)):
            rejected = step_guard.rejection(index)
            if rejected is None:
                try:
                    sampled.append(Sampled(latents, tensor_guards.check_latents(latents, guards)))
                    continue
                except Rejected as failed:
                    rejected = failed
            sampled.append(Sampled(rejected=rejected))
        return sampled

    def _decode_and_check(self, latents: torch.Tensor, request: GenerationRequest, guards: GuardSettings) -> _Decoded:
        image = self._decode(latents)
        metrics = tensor_guards.check_decoded(image, guards)
        self._check_safety(image, request, metrics)
        rgb = to_uint8(image)
        verdict = check_pixels(rgb, guards)
        metrics.update(verdict.metrics)
        if not verdict.ok:
            raise Rejected(verdict.guard or "pixels", "; ".join(verdict.reasons), metrics, thumbnail=thumbnail_png(rgb))
        return _Decoded(rgb, metrics)

    def _decode(self, latents: torch.Tensor) -> torch.Tensor:
        """Latents (scaled space) -> image in [-1, 1], float32, with the model's own VAE factors."""
        vae = self.modules["vae"]
        config = vae.config
        vae_dtype = _dtype_of(vae)
        values = latents.to(device=self.pipe._execution_device, dtype=vae_dtype)
        mean, std = getattr(config, "latents_mean", None), getattr(config, "latents_std", None)
        if mean is not None and std is not None:
            shape = (1, -1, 1, 1)
            mean_t = torch.tensor(mean, device=values.device, dtype=vae_dtype).view(shape)
            std_t = torch.tensor(std, device=values.device, dtype=vae_dtype).view(shape)
            values = values * std_t / config.scaling_factor + mean_t
        else:
            values = values / config.scaling_factor + (getattr(config, "shift_factor", None) or 0.0)
        if values.dtype != vae_dtype or torch.is_grad_enabled():
            raise MintprepError(f"decode would run with latents {values.dtype} into a {vae_dtype} VAE "
                                f"(grad enabled: {torch.is_grad_enabled()})")
        return vae.decode(values, return_dict=False)[0].float()

    def _check_safety(self, image: torch.Tensor, request: GenerationRequest, metrics: dict[str, float]) -> None:
        checker = getattr(self.pipe, "safety_checker", None)
        if checker is None or not request.settings.safety_checker:
            return
        with _quiet_diffusers():  # it warns that it returns a black image; mintprep rejects the attempt instead
            _, flagged = self.pipe.run_safety_checker(image.clone(), self.pipe._execution_device, _dtype_of(checker))
        metrics["nsfw"] = float(flagged is not None and any(flagged))
        if metrics["nsfw"]:
            raise Rejected("nsfw", "the model's safety checker flagged the image (it would have been blacked out)",
                           metrics)

    def _accepted(self, request: GenerationRequest, records: list[AttemptRecord], attempt: int, seed: int,
                  rung: Rung, decoded: _Decoded, metrics: dict[str, float], batch: dict[str, int]) -> GenerationResult:
        png = encode_png(upscale_nearest(decoded.rgb, request.settings.upscale))
        png_sha256 = sha256_hex(png)
        return GenerationResult(
            token_id=request.token_id, png=png, png_sha256=png_sha256, accepted_attempt=attempt, attempts=records,
            metrics=metrics, provenance=self._provenance(request, seed, attempt, rung, png_sha256, batch),
        )

    # -- precision and placement ---------------------------------------------------------------

    def _set_precision(self, rung: Rung) -> None:
        """Cast each component to its rung's dtype, from a master copy of its loaded weights, so climbing back up
        after an fp16 rung restores exactly the loaded values (a fp16 round trip would not)."""
        for name, module in self.modules.items():
            target = DTYPES[rung[name]]
            if _dtype_of(module) == target:
                continue
            if name not in self._masters:
                self._masters[name] = {key: value.detach().to("cpu", copy=True)
                                       for key, value in module.state_dict().items()}
            with _quiet_diffusers():  # it warns that casting with .to() is discouraged: we cast from masters
                module.to(dtype=target)
            module.load_state_dict(self._masters[name])

    def _place(self) -> None:
        offload = self.settings.offload
        if offload != "none" and self.device.type == "cuda":
            if offload == "model":
                self.pipe.enable_model_cpu_offload(device=self.device)
            else:
                self.pipe.enable_sequential_cpu_offload(device=self.device)
        else:
            with _quiet_diffusers():  # "fp16 cannot run on cpu" is no longer true of torch
                self.pipe.to(self.device)

    def _assert_inference_ready(self) -> None:
        for name, submodules in self._submodules.items():
            for path, child in submodules:
                if child.training:
                    raise MintprepError(f"{name} has modules in train mode ({path or name}): dropout would "
                                        "change the image; call .eval()")
                # Read through _parameters: offloading may swap a module's Parameter objects.
                if any(p is not None and p.requires_grad for p in child._parameters.values()):
                    raise MintprepError(f"{name} has parameters that require gradients; call .requires_grad_(False)")

    def _check_compatible(self, settings: GeneratorSettings) -> None:
        check_compatible(self.settings, settings)

    # -- records -------------------------------------------------------------------------------

    def _scheduler_description(self) -> dict[str, Any]:
        scheduler = self.pipe.scheduler
        return {"class": type(scheduler).__name__, "config": _jsonable(dict(scheduler.config))}

    def _provenance(self, request: GenerationRequest, seed: int, attempt: int, rung: Rung,
                    png_sha256: str, batch: dict[str, int]) -> dict[str, Any]:
        settings = request.settings
        return {
            "model": {**self.source, "fingerprint": self.fingerprint, "pipeline": type(self.pipe).__name__},
            "scheduler": self._scheduler_description(),
            "prompt": request.prompt,
            "negative_prompt": request.negative_prompt,
            "token_id": request.token_id,
            "collection_seed": request.collection_seed,
            "attempt": attempt,
            "seed": seed,
            "seed_derivation": "the request's own seed (the creator's recipe)" if seed == request.seed else
                               "attempt_seed(collection_seed, token_id, attempt) = sha256 of canonical JSON "
                               "['mintprep.attempt_seed/v1', collection_seed, token_id, attempt], first 63 bits",
            "generator_device": "cpu",
            # The accepted attempt's pipeline call: its sample count and this piece's place in it (a piece's bytes
            # depend on both, not on what the other samples were).
            "batch": batch,
            "sampling": settings.model_dump(mode="json", include=set(PIECE_FIELDS)),
            "dtypes": dict(rung),
            "stored_dtypes": self.stored_dtypes,
            "decode": {"by": "mintprep", "vae_tiling": False, "vae_slicing": False,
                       "scaling_factor": self.modules["vae"].config.scaling_factor,
                       "shift_factor": getattr(self.modules["vae"].config, "shift_factor", None)},
            "attention": sorted({type(p).__name__ for p in getattr(self.denoiser, "attn_processors", {}).values()}),
            "offload": self.settings.offload,
            "safety_checker": getattr(self.pipe, "safety_checker", None) is not None and settings.safety_checker,
            "guards": request.guards.model_dump(mode="json"),
            "versions": numeric_versions(),
            "device": device_facts(self.device),
            "png_sha256": png_sha256,
        }


@contextlib.contextmanager
def _quiet_diffusers():
    logger = logging.getLogger("diffusers")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _record(attempt: int, seed: int, rung: Rung, rejected: Rejected, redecode_of: int | None = None,
            measured_before: dict[str, float] | None = None) -> AttemptRecord:
    """`measured_before`: what earlier stages of the attempt measured (the latents, for a decode rejection)."""
    return AttemptRecord(attempt=attempt, seed=seed, precision=dict(rung), guard=rejected.guard, step=rejected.step,
                         reason=rejected.reason, metrics={**(measured_before or {}), **rejected.metrics},
                         redecode_of=redecode_of, thumbnail=rejected.thumbnail)


def _dtype_of(module: torch.nn.Module) -> torch.dtype:
    return next(module.parameters()).dtype


def _cast_inputs_to_own_dtype(module: torch.nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The pipeline hands the denoiser latents in the text encoder's dtype; cast floats to the denoiser's own."""
    dtype = _dtype_of(module)

    def cast(value: Any) -> Any:
        return value.to(dtype) if isinstance(value, torch.Tensor) and value.is_floating_point() else value

    return tuple(cast(a) for a in args), {key: cast(value) for key, value in kwargs.items()}


def _fingerprint(modules: dict[str, torch.nn.Module], pipe: Any) -> str:
    """sha256 over each component's class, config and weights as loaded (bytes, dtype, shape), plus the scheduler
    config and the versions that change numerics. Hashing the tensors in memory makes any source (tiny, hub,
    folder, single file) and any edit of the weights visible, at the cost of one pass over them at load."""
    digest = hashlib.sha256()
    for name in sorted(modules):
        module = modules[name]
        config = getattr(module, "config", None)
        described = _jsonable(config.to_dict() if hasattr(config, "to_dict") else dict(config or {}))
        digest.update(canonical_json([name, type(module).__name__, described]))
        for key, tensor in sorted(module.state_dict().items()):
            value = tensor.detach().to("cpu").contiguous()
            digest.update(canonical_json([key, str(value.dtype), list(value.shape)]))
            digest.update(value.view(torch.uint8).numpy().tobytes() if value.numel() else b"")
    digest.update(canonical_json([type(pipe.scheduler).__name__, _jsonable(dict(pipe.scheduler.config)),
                                  numeric_versions()]))
    return digest.hexdigest()


def _jsonable(value: Any) -> Any:
    """Configs hold tuples, numpy scalars and the odd dtype: make them canonical-JSON values."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    return str(value)
