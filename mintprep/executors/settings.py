"""The `executor:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mintprep.model import StrictModel


class ExecutorSettings(StrictModel):
    kind: Literal["local", "ray"] = "local"
    address: str | None = Field(None, description="Ray cluster address (ray only); default starts a local one")
