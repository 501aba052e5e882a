"""Base for every config model: unknown keys are errors, no value is coerced, values are immutable once loaded."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    # strict: `size: true`, `size: '4'` and `steps: 4.0` are refused rather than read as 1, 4 and 4;
    # allow_inf_nan: no setting means anything with .inf or .nan.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
