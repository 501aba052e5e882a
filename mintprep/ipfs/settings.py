"""The `ipfs:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from mintprep.base import ConfigError, StrictModel, register_secret, secret_from_env
from mintprep.ipfs.profile_names import ProfileName
from mintprep.net import PrivateUrl, PublicUrl


class ClusterSettings(StrictModel):
    """`ipfs.cluster:` for `backend: cluster` (IPFS Cluster's REST API, ipfscluster.io/documentation/reference/api)."""

    replication_min: int = Field(
        2, ge=1, le=1000, description="peers that must report `pinned` before a piece counts as pinned "
        "(Cluster's replication-min)")
    replication_max: int = Field(3, ge=1, le=1000, description="peers Cluster may allocate a pin to (replication-max)")
    replicated_within_s: float = Field(
        600.0, gt=0, le=86_400, description="how long a piece's pin status is polled for `pinned` on replication_min "
        "peers before the piece fails")
    basic_auth_env: str | None = Field(
        None, description="NAME of the environment variable holding `user:password` for Cluster's basic auth (or "
        "set ipfs.token_env for a bearer token), never the credentials")

    @model_validator(mode="after")
    def _max_at_least_min(self) -> ClusterSettings:
        if self.replication_max < self.replication_min:
            raise ValueError(f"ipfs.cluster.replication_max ({self.replication_max}) is below replication_min "
                             f"({self.replication_min})")
        return self

    def basic_auth(self) -> tuple[str, str] | None:
        """(user, password) from the variable `basic_auth_env` names; ConfigError if it is unset or lacks a colon."""
        if not self.basic_auth_env:
            return None
        user, colon, password = (secret_from_env(self.basic_auth_env) or "").partition(":")
        if not (user and colon and password):
            raise ConfigError(f"ipfs.cluster.basic_auth_env: environment variable {self.basic_auth_env} must hold "
                              "user:password", field="ipfs.cluster.basic_auth_env")
        return user, register_secret(password)


class IpfsSettings(StrictModel):
    backend: Literal["local", "kubo", "psa", "pinata", "cluster"] = "local"
    profile: ProfileName = "kubo-cidv1"
    api_url: PrivateUrl | None = None  # kubo RPC (:5001), PSA base, Cluster REST API (:9094); for pinata, its API base
    upload_url: PrivateUrl | None = None  # pinata only: the uploads host (default https://uploads.pinata.cloud)
    token_env: str | None = None  # NAME of the environment variable holding the token, never the token
    gateway: PublicUrl = "https://ipfs.io"  # trustless gateway for psa/pinata/cluster verification, and for the page
    gateways: list[PublicUrl] = Field(
        default_factory=list,
        description="trustless gateways `mintprep import` reads blocks from, tried in turn, when --gateway is not "
        "given (default: `gateway`); every block is checked against its CID")
    pin_timeout_s: float = Field(default=600.0, gt=0)  # psa: how long a pin may stay queued/pinning
    pin_concurrency: int = Field(
        default=16, ge=1, le=256,
        description="remote backends: requests in flight at once while pinning and verifying (the local store "
        "pins one piece after another); `import` from IPFS: tokens read at once through the gateways")
    car_max_bytes: int = Field(
        default=32 << 20, ge=1 << 20, le=1 << 30,
        description="kubo: pieces sent together in one CAR to dag/import, up to this many bytes (a larger piece "
        "goes alone)")
    max_block_bytes: int = Field(
        default=2 << 20, ge=1 << 20, le=64 << 20,
        description="the largest block `import`, `audit` and the gateways read: 2 MiB, the most bitswap carries "
        "(kubo makes none over 1 MiB without --allow-big-block); raise it only for a collection that knowingly "
        "uses bigger blocks")
    request_timeout_s: float = Field(
        60.0, gt=0, le=3600, description="one HTTP request's fixed allowance; its deadline adds the time its bytes "
        "(sent and received) take at min_throughput_kib_s, so a 32 MiB CAR gets 60 s + 512 s")
    min_throughput_kib_s: float = Field(
        64.0, gt=0, le=1 << 20, description="the slowest transfer (KiB/s) a request may make before it is cut off "
        "and retried: a server trickling bytes is far below it, a slow but honest uplink is above it")
    give_up_after_s: float = Field(
        600.0, gt=0, le=86_400, description="a service that keeps failing is given up on after this long (all "
        "retries together)"
    )
    cluster: ClusterSettings = Field(default_factory=ClusterSettings)

    @model_validator(mode="after")
    def _backend_needs(self) -> IpfsSettings:
        if self.backend in ("kubo", "psa", "cluster") and not self.api_url:
            raise ValueError(f"ipfs.api_url is required for backend {self.backend!r}")
        if self.backend in ("psa", "pinata") and not self.token_env:
            raise ValueError(f"ipfs.token_env (the name of an environment variable) is required for backend {self.backend!r}")
        if self.token_env and self.cluster.basic_auth_env:
            raise ValueError("ipfs.token_env and ipfs.cluster.basic_auth_env are two ways to log in to Cluster: set one")
        return self

    def read_gateways(self) -> tuple[str, ...]:
        """Where blocks missing from the collection's own store are read from, in order."""
        return tuple(self.gateways) or (self.gateway,)

    def token(self) -> str | None:
        """The token from the environment variable named by `token_env`; ConfigError if it is unset."""
        if not self.token_env:
            return None
        value = secret_from_env(self.token_env)
        if not value:
            raise ConfigError(f"ipfs.token_env: environment variable {self.token_env} is not set or empty",
                              field="ipfs.token_env")
        return value
