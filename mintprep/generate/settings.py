"""The `generator:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mintprep.model import StrictModel

Precision = Literal["fp32", "bf16", "fp16"]


class GeneratorSettings(StrictModel):
    kind: Literal["tiny", "diffusers"] = "tiny"
    model: str | None = Field(None, description="hub id, local diffusers folder or .safetensors file (diffusers)")
    steps: int = Field(20, ge=1, le=1000)
    guidance: float = Field(7.0, ge=0.0, le=50.0)
    width: int = Field(64, ge=8, le=4096, multiple_of=8)
    height: int = Field(64, ge=8, le=4096, multiple_of=8)
    upscale: int = Field(1, ge=1, le=64, description="nearest-neighbour upscale factor applied after the guards")
    precision: Precision | dict[str, Precision] = "fp32"
    fallback: list[Precision] = Field(default_factory=lambda: ["bf16", "fp32"])
    max_attempts: int = Field(3, ge=1, le=100)
