"""The `generator:` section of collection.yaml."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from mintprep.base import StrictModel

Precision = Literal["fp32", "bf16", "fp16"]

# Components whose dtype can be set on their own; "default" covers every component not named.
PRECISION_COMPONENTS = ("default", "unet", "transformer", "vae", "text_encoder", "text_encoder_2", "text_encoder_3")


class GeneratorSettings(StrictModel):
    kind: Literal["tiny", "diffusers"] = "tiny"
    model: str | None = Field(
        None,
        description="diffusers: hub id, local diffusers folder or .safetensors file. tiny: the variant "
        "(default | fp16-overflow-vae | constant-decoder; see mintprep.generate.tiny)",
    )
    revision: str | None = Field(None, description="hub revision (branch, tag or commit) for a hub id")
    config: str | None = Field(
        None, description="single-file checkpoints: local diffusers folder (or cached hub id) holding the configs"
    )
    scheduler: str | None = Field(None, description="diffusers scheduler class, e.g. EulerDiscreteScheduler; "
                                  "default: the model's own")
    scheduler_config: dict[str, Any] = Field(default_factory=dict, description="overrides of the scheduler config")
    steps: int = Field(20, ge=1, le=1000)
    guidance: float = Field(7.0, ge=0.0, le=50.0)
    width: int = Field(64, ge=8, le=4096, multiple_of=8)
    height: int = Field(64, ge=8, le=4096, multiple_of=8)
    upscale: int = Field(1, ge=1, le=64, description="nearest-neighbour upscale factor applied after the guards")
    precision: Precision | dict[str, Precision] = Field(
        "fp32", description="one dtype for every component, or per component, e.g. {unet: fp16, vae: fp32}"
    )
    fallback: list[Precision] = Field(
        default_factory=lambda: ["bf16", "fp32"],
        description="precision ladder climbed after a numeric failure; each rung raises every component to at "
        "least that precision",
    )
    max_attempts: int = Field(3, ge=1, le=100, description="sampling attempts per piece (re-decodes not counted)")
    batch_size: int = Field(
        1, ge=1, le=64,
        description="samples per pipeline call: pieces token_id // batch_size == k share a call, each at position "
        "token_id % batch_size (retries run alone); the main throughput lever on a large GPU. Changing it "
        "regenerates every piece (a sample's bytes depend on the size of its call and its place in it)")
    device: Literal["auto", "cpu", "cuda", "mps"] = Field("auto", description="auto: cuda, then mps, then cpu")
    offload: Literal["none", "model", "sequential"] = Field(
        "none", description="accelerate CPU offload (cuda only): model = whole components, sequential = submodules"
    )
    safety_checker: bool = Field(
        True, description="run the model's safety checker when it has one; a flagged image is a rejection"
    )
    recipe_log: str | None = Field(
        None, description="the creator's generation log (.csv with a header, or .jsonl), relative to this file: "
        "token_id, seed, prompt, negative, steps, guidance, width, height, scheduler, model per piece; a piece is "
        "made (and a broken one remade) from its logged recipe. See mintprep.collection.recipe")

    @field_validator("scheduler")
    @classmethod
    def _known_scheduler(cls, name: str | None) -> str | None:
        from mintprep.generate.schedulers import check_scheduler_name  # diffusers loads only when one is named

        return None if name is None else check_scheduler_name(name)

    @field_validator("scheduler_config")
    @classmethod
    def _scheduler_accepts(cls, overrides: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        from mintprep.generate.schedulers import check_scheduler_config

        return check_scheduler_config(info.data.get("scheduler"), overrides) if overrides else overrides

    @field_validator("precision")
    @classmethod
    def _known_components(cls, precision: Precision | dict[str, Precision]) -> Precision | dict[str, Precision]:
        if isinstance(precision, dict):
            unknown = sorted(set(precision) - set(PRECISION_COMPONENTS))
            if unknown:
                raise ValueError(f"unknown component {', '.join(unknown)}; use {', '.join(PRECISION_COMPONENTS)}")
        return precision
