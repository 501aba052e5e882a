"""Base for every config model: unknown keys are errors, values are immutable once loaded."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
