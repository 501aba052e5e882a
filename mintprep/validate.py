"""Pixel guards on uint8 images (being written)."""

from __future__ import annotations

from pydantic import Field

from mintprep.model import StrictModel


class GuardSettings(StrictModel):
    min_std: float = Field(3.0, ge=0.0, description="reject as flat below this pixel standard deviation")
