"""The `chain:` section of collection.yaml."""

from __future__ import annotations

import re
from decimal import Decimal

from eth_utils import is_address, is_checksum_address, to_checksum_address
from pydantic import Field, field_validator

from mintprep.chain.networks import Network, NetworkName, network
from mintprep.model import StrictModel
from mintprep.urls import PrivateUrl

WEI_PER_ETH = 10**18
MAX_PRICE_ETH = 1_000_000  # far above any real drop, far below uint256: a typo, not a price
PRICE = re.compile(r"(0|[1-9][0-9]{0,6})(\.[0-9]{1,18})?", re.ASCII)


class ChainSettings(StrictModel):
    network: NetworkName = "base"
    rpc_url: PrivateUrl | None = Field(None, description="JSON-RPC endpoint (http/https); default: the network's public RPC")
    contract: str | None = Field(None, description="the deployed MintprepDrop; set after `mintprep contract deploy`")
    mint_price: str = Field("0", description='price per token in ETH, a quoted decimal string such as "0.00063"')
    max_per_wallet: int = Field(5, ge=1)
    owner: str | None = Field(None, description="contract owner (e.g. a multisig); default: the deploying account")
    royalty_bps: int = Field(0, ge=0, le=10_000, description="ERC-2981 royalty in basis points (500 = 5%)")
    royalty_receiver: str | None = Field(None, description="royalty payee; default: the owner")

    @field_validator("mint_price", mode="before")
    @classmethod
    def _decimal_string(cls, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f'must be a decimal string in ETH such as "0.00063" (quoted), got {value!r}')
        if value.startswith("-"):
            raise ValueError(f"must be a non-negative amount of ETH, got {value[:40]!r}")
        whole, _, decimals = value.partition(".")
        if len(decimals) > 18 and PRICE.fullmatch(f"{whole}.{decimals[:18]}") and decimals.isdigit():
            raise ValueError(f"has more than 18 decimals (finer than 1 wei), got {value[:40]!r}")
        if not PRICE.fullmatch(value) or Decimal(value) > MAX_PRICE_ETH:
            # Decimal() would read "1_0" as 10, " 1 " as 1 and "1e400" as a number no contract holds.
            raise ValueError(f'must be plain digits with at most one point and 18 decimals, at most '
                             f'{MAX_PRICE_ETH:,} ETH, such as "0.00063"; got {value[:40]!r}')
        return value

    @field_validator("contract", "owner", "royalty_receiver")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not is_address(value):
            raise ValueError(f"must be a 0x-prefixed 20-byte hex address, got {value!r}")
        digits = value[2:]
        # Mixed case is an EIP-55 checksum: a typo in it must fail here, not send funds to a wrong address.
        if digits != digits.lower() and digits != digits.upper() and not is_checksum_address(value):
            raise ValueError(f"has an invalid EIP-55 checksum (a mistyped letter?), got {value!r}")
        return to_checksum_address(value)

    @property
    def mint_price_wei(self) -> int:
        return int(Decimal(self.mint_price) * WEI_PER_ETH)

    def endpoint(self, network_name: str | None = None, rpc_url: str | None = None) -> tuple[Network, str]:
        """The network and RPC URL to use: explicit choices first, then this section, then the public RPC.

        chain.rpc_url only applies to chain.network; another --network gets its own public RPC.
        """
        chosen = network(network_name or self.network)
        configured = self.rpc_url if chosen.name == self.network else None
        return chosen, rpc_url or configured or chosen.default_rpc
