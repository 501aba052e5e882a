"""What a wallet needs to switch to (or add) the page's chain, and where its explorer is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mintprep.net import NETWORKS

# The names wallets show in their network list (EIP-3085 chainName).
_DISPLAY_NAMES = {"base": "Base", "base-sepolia": "Base Sepolia"}


@dataclass(frozen=True)
class ChainInfo:
    chain_id: int
    name: str
    public_rpc: str | None
    explorer: str | None

    def wallet_params(self, rpc_url: str) -> dict[str, Any]:
        """The single argument of `wallet_addEthereumChain` (EIP-3085)."""
        params: dict[str, Any] = {
            "chainId": hex(self.chain_id),
            "chainName": self.name,
            "nativeCurrency": {"name": "Ether", "symbol": "ETH", "decimals": 18},
            # A wallet keeps this RPC for the user; prefer the chain's public one over the page's own.
            "rpcUrls": [self.public_rpc or rpc_url],
        }
        if self.explorer:
            params["blockExplorerUrls"] = [self.explorer]
        return params


def chain_info(chain_id: int) -> ChainInfo:
    for network in NETWORKS.values():
        if network.chain_id == chain_id and network.name in _DISPLAY_NAMES:
            return ChainInfo(chain_id, _DISPLAY_NAMES[network.name], network.default_rpc, network.explorer)
    return ChainInfo(chain_id, f"Local chain {chain_id}", None, None)
