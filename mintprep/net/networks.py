"""The networks `chain.network` names: which chain id each must report and its public RPC."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NetworkName = Literal["base", "base-sepolia", "local"]


@dataclass(frozen=True)
class Network:
    name: NetworkName
    chain_id: int
    # Public endpoints are rate limited and "not for production" (docs.base.org): fine for reads and a deploy.
    default_rpc: str
    explorer: str | None

    def tx_url(self, tx_hash: str) -> str | None:
        return f"{self.explorer}/tx/{tx_hash}" if self.explorer else None


NETWORKS: dict[str, Network] = {
    "base": Network("base", 8453, "https://mainnet.base.org", "https://basescan.org"),
    "base-sepolia": Network("base-sepolia", 84532, "https://sepolia.base.org", "https://sepolia.basescan.org"),
    # anvil's defaults: `anvil` with no flags answers here with chain id 31337.
    "local": Network("local", 31337, "http://127.0.0.1:8545", None),
}


def network(name: str) -> Network:
    return NETWORKS[name]
