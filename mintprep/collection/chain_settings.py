"""The `chain:` section of collection.yaml."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import Field, field_validator, model_validator

from mintprep.base import HEX_ADDRESS, StrictModel, has_valid_checksum, to_checksum_address
from mintprep.net import Network, NetworkName, PrivateUrl, network

WEI_PER_ETH = 10**18
MAX_PRICE_ETH = 1_000_000  # far above any real drop, far below uint256: a typo, not a price
PRICE = re.compile(r"(0|[1-9][0-9]{0,6})(\.[0-9]{1,18})?", re.ASCII)
# A phase without `end` stays open: the largest uint64, the contract's type for times.
NEVER = 2**64 - 1


def eth_to_wei_string(value: object) -> str:
    """A quoted decimal ETH amount, checked: plain digits, at most 18 decimals (1 wei), at most MAX_PRICE_ETH."""
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


def eth_to_wei(text: str) -> int:
    """A price `eth_to_wei_string` accepted, in wei, exactly (Decimal, never a float)."""
    return int(Decimal(text) * WEI_PER_ETH)


def _address(value: str | None) -> str | None:
    if value is None:
        return None
    if not HEX_ADDRESS.fullmatch(value):
        raise ValueError(f"must be a 0x-prefixed 20-byte hex address, got {value!r}")
    # Mixed case is an EIP-55 checksum: a typo in it must fail here, not send funds to a wrong address.
    if not has_valid_checksum(value):
        raise ValueError(f"has an invalid EIP-55 checksum (a mistyped letter?), got {value!r}")
    return to_checksum_address(value)


def _unix_seconds(value: datetime | int | None, default: int) -> int:
    if value is None:
        return default
    return value if isinstance(value, int) else int(value.timestamp())


class PhaseSettings(StrictModel):
    """One sale phase: open from `start` (inclusive) to `end` (exclusive), at its price and per-wallet cap."""

    name: str = Field(min_length=1, max_length=64)
    start: datetime | int | None = Field(
        None, description="ISO 8601 time with a timezone (2026-12-01T17:00:00Z) or unix seconds; default: 0, open "
        "from the deploy on (the contract stores 0 and opens the phase as soon as it exists)"
    )
    end: datetime | int | None = Field(None, description="first second the phase is closed; default: never")
    price: str = Field("0", description='price per token in ETH, a quoted decimal string such as "0.00063"')
    max_per_wallet: int = Field(5, ge=1, lt=2**32)
    max_mints: int | None = Field(None, ge=1, lt=2**32, description="tokens this phase may mint in all; default: no cap")
    allowlist: str | None = Field(
        None, description="file of addresses allowed in this phase (one per line or CSV first column), relative to the yaml"
    )

    @field_validator("price", mode="before")
    @classmethod
    def _price(cls, value: object) -> str:
        return eth_to_wei_string(value)

    @field_validator("start", "end", mode="before")
    @classmethod
    def _iso_time(cls, value: object) -> object:
        # The YAML loader keeps timestamps as text and the models are strict: ISO 8601 is parsed here, once.
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"must be an ISO 8601 time such as 2026-12-01T17:00:00Z, got {value[:40]!r}") from None
        return value

    @field_validator("start", "end")
    @classmethod
    def _aware_time(cls, value: datetime | int | None) -> datetime | int | None:
        if isinstance(value, datetime) and value.tzinfo is None:
            raise ValueError("needs a timezone (end it with Z for UTC), otherwise the time depends on the machine")
        if isinstance(value, int) and not 0 <= value < NEVER:
            raise ValueError(f"must be unix seconds between 0 and {NEVER - 1}, got {value}")
        return value

    @model_validator(mode="after")
    def _start_before_end(self) -> "PhaseSettings":
        if self.start_time >= self.end_time:
            raise ValueError(f"phase {self.name!r}: start must be before end")
        return self

    @property
    def start_time(self) -> int:
        return _unix_seconds(self.start, 0)

    @property
    def end_time(self) -> int:
        return _unix_seconds(self.end, NEVER)

    @property
    def price_wei(self) -> int:
        return eth_to_wei(self.price)


class VerifySettings(StrictModel):
    """Where `mintprep contract verify` submits the source and `check` asks whether it is verified."""

    sourcify_url: PrivateUrl = Field("https://sourcify.dev/server", description="Sourcify server (APIv2)")
    etherscan_url: PrivateUrl = Field("https://api.etherscan.io/v2/api",
                                      description="Etherscan API V2 endpoint (any chain)")
    etherscan_api_key_env: str = Field("ETHERSCAN_API_KEY", description="environment variable holding the API key")
    blockscout_url: PrivateUrl | None = Field(None, description="Blockscout instance asked for a verified ABI "
                                                                "(e.g. https://base.blockscout.com)")


class ProfileSettings(StrictModel):
    """The contract's roles as the user declares them: role -> its own function signature (see
    mintprep.collection.contract_roles for the role names). Read before any verified ABI or the runtime code."""

    family: str | None = Field(None, description="a family mintprep knows (hashlips-lower-gas, thirdweb-drop, …)")
    uri_form: Literal["base", "batches", "renderer", "per-token"] | None = Field(
        None, description="how token URIs are formed; default: from the family or the roles")
    first_id: int | None = Field(None, ge=0, description="the first token id; default: the family's")
    roles: dict[str, str] = Field(default_factory=dict,
                                  description='role -> function signature, e.g. set_base_uri: "setUriPrefix(string)"')

    @field_validator("family")
    @classmethod
    def _known_family(cls, value: str | None) -> str | None:
        from mintprep.collection.known_families import BY_NAME

        if value is not None and value not in BY_NAME:
            raise ValueError(f"unknown family {value!r}; known: {', '.join(sorted(BY_NAME))}")
        return value

    @field_validator("roles")
    @classmethod
    def _roles(cls, value: dict[str, str]) -> dict[str, str]:
        from mintprep.collection.contract_roles import ROLES
        from mintprep.collection.contract_signatures import checked_signature

        for role, signature in value.items():
            if role not in ROLES:
                raise ValueError(f"unknown role {role!r}; roles: {', '.join(sorted(ROLES))}")
            if not isinstance(signature, str):
                raise ValueError(f"{role}: expected a function signature string, got {signature!r}")
            checked_signature(signature)
        return value


class RevealSettings(StrictModel):
    """Mint unrevealed: every token shows the placeholder until `mintprep reveal` shifts the art by a random offset."""

    placeholder_image: str | None = Field(
        None, description="image every token shows before the reveal (relative to the yaml); pinned with its JSON"
    )
    placeholder_uri: str | None = Field(None, description="or: the tokenURI of a placeholder JSON pinned elsewhere")

    @field_validator("placeholder_uri")
    @classmethod
    def _uri(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("ipfs://", "https://")):
            raise ValueError(f"must be an ipfs:// or https:// URI, got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_placeholder(self) -> "RevealSettings":
        if (self.placeholder_image is None) == (self.placeholder_uri is None):
            raise ValueError("set exactly one of placeholder_image and placeholder_uri")
        return self


# The phases travel in the deploy transaction's initcode, which EIP-3860 caps at 49,152 bytes: the contract's
# creation code is about 16,100 bytes and each phase 192 (six ABI words), so about 165 phases fit beside the
# name, URIs and payees; 300 fail on a node with "max initcode size exceeded" (tests/chain/test_phases.py).
# 128 leaves room for long names, URIs and payout lists.
MAX_PHASES = 128


class ChainSettings(StrictModel):
    network: NetworkName = "base"
    rpc_url: PrivateUrl | None = Field(None, description="JSON-RPC endpoint (http/https); default: the network's public RPC")
    contract: str | None = Field(None, description="the deployed MintprepDrop; set after `mintprep contract deploy`")
    profile: ProfileSettings | None = Field(
        None, description="the contract's roles, declared: read instead of its verified ABI or runtime code")
    abi: str | None = Field(None, description="the contract's ABI file (relative to the yaml): its functions tell "
                                              "mintprep the contract's family")
    mint_price: str = Field("0", description='price per token in ETH, a quoted decimal string such as "0.00063"')
    max_per_wallet: int = Field(5, ge=1)
    max_per_tx: int | None = Field(None, ge=1, description="the cap on one mint call, for a contract that limits "
                                   "each transaction rather than each wallet (HashLips' maxMintAmountPerTx); `check` "
                                   "compares it")
    owner: str | None = Field(None, description="contract owner (e.g. a multisig); default: the deploying account")
    royalty_bps: int = Field(0, ge=0, le=10_000, description="ERC-2981 royalty in basis points (500 = 5%)")
    royalty_receiver: str | None = Field(None, description="royalty payee; default: the owner")

    phases: list[PhaseSettings] = Field(
        default_factory=list,
        description="timed sale phases; without them the sale is one public phase at mint_price and max_per_wallet",
    )
    reveal: RevealSettings | None = Field(None, description="mint unrevealed, then `mintprep reveal` (fair offset)")
    verify: VerifySettings | None = Field(
        None, description="source verification services; when set, `check` also asks them whether the drop is verified"
    )
    payouts: dict[str, int] = Field(
        default_factory=dict,
        description="address -> shares of the mint proceeds, each payee pulls its part; default: all to the owner",
    )

    @field_validator("mint_price", mode="before")
    @classmethod
    def _decimal_string(cls, value: object) -> str:
        return eth_to_wei_string(value)

    @field_validator("contract", "owner", "royalty_receiver")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        return _address(value)

    @field_validator("phases")
    @classmethod
    def _fits_initcode(cls, value: list[PhaseSettings]) -> list[PhaseSettings]:
        if len(value) > MAX_PHASES:
            raise ValueError(f"{len(value)} phases; at most {MAX_PHASES} fit in the contract's deploy transaction "
                             "(EIP-3860 initcode limit)")
        return value

    @field_validator("payouts")
    @classmethod
    def _payees(cls, value: dict[str, int]) -> dict[str, int]:
        checked: dict[str, int] = {}
        for address, share in value.items():
            payee = _address(address)
            if not isinstance(share, int) or share < 1:
                raise ValueError(f"{address}: shares must be a whole number ≥ 1, got {share!r}")
            if payee in checked:
                raise ValueError(f"{address} is listed twice")
            checked[payee] = share  # type: ignore[index]
        return checked

    @model_validator(mode="after")
    def _one_way_to_price(self) -> "ChainSettings":
        if self.phases and {"mint_price", "max_per_wallet"} & self.model_fields_set:
            raise ValueError("with chain.phases, set price and max_per_wallet on each phase, not chain.mint_price / "
                             "chain.max_per_wallet")
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError("chain.phases: two phases have the same name")
        return self

    def sale_phases(self) -> list[PhaseSettings]:
        """The phases the contract gets: chain.phases, or one public phase from mint_price and max_per_wallet."""
        if self.phases:
            return list(self.phases)
        return [PhaseSettings(name="public", price=self.mint_price, max_per_wallet=self.max_per_wallet)]

    def endpoint(self, network_name: str | None = None, rpc_url: str | None = None) -> tuple[Network, str]:
        """The network and RPC URL to use: explicit choices first, then this section, then the public RPC.

        chain.rpc_url only applies to chain.network; another --network gets its own public RPC.
        """
        chosen = network(network_name or self.network)
        configured = self.rpc_url if chosen.name == self.network else None
        return chosen, rpc_url or configured or chosen.default_rpc
