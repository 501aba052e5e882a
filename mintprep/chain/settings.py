"""The `chain:` section of collection.yaml."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Literal

from pydantic import Field, field_validator

from mintprep.model import StrictModel


class ChainSettings(StrictModel):
    network: Literal["base", "base-sepolia", "local"] = "base"
    rpc_url: str | None = None
    contract: str | None = None
    mint_price: str = "0"
    max_per_wallet: int = Field(5, ge=1)

    @field_validator("mint_price", mode="before")
    @classmethod
    def _decimal_string(cls, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f'must be a decimal string in ETH such as "0.00063" (quoted), got {value!r}')
        try:
            amount = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"must be a decimal number of ETH, got {value!r}") from None
        if not amount.is_finite() or amount < 0:
            raise ValueError(f"must be a non-negative amount of ETH, got {value!r}")
        return value
