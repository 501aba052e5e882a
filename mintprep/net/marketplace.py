"""Telling marketplaces a repair moved the base URI: OpenSea's v2 metadata refresh, one request per token.

`POST {api}/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh` with the key in `X-API-KEY`
(docs.opensea.io, "Refresh NFT metadata"). Optional: without `OPENSEA_API_KEY` in the environment nothing is
sent. ERC-4906's MetadataUpdate events, which the contract emits on setBaseURI, are untouched by this.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable

from mintprep.base import RemoteError, secret_from_env
from mintprep.net.http import RetryPolicy, send

if TYPE_CHECKING:
    from mintprep.state import Workspace

OPENSEA_KEY_ENV = "OPENSEA_API_KEY"
OPENSEA_API_ENV = "MINTPREP_OPENSEA_API"  # another endpoint following the same API (a proxy, a test server)
OPENSEA_API = "https://api.opensea.io"
CHAIN_SLUGS = {8453: "base", 84532: "base_sepolia"}  # OpenSea's chain identifiers
OPENSEA_SITES = {8453: "https://opensea.io", 84532: "https://testnets.opensea.io"}


def collection_url(chain_id: int, address: str | None) -> str | None:
    """Where buyers find the collection once it is sold out: OpenSea's page for the contract (pure)."""
    if address is None or chain_id not in CHAIN_SLUGS:
        return None
    return f"{OPENSEA_SITES[chain_id]}/assets/{CHAIN_SLUGS[chain_id]}/{address}"


@dataclass(frozen=True)
class Refresh:
    token_id: int
    accepted: bool
    detail: str  # the HTTP status, or why nothing was sent; never the server's text (it may echo the key)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def request_refreshes(api: str, key: str, chain: str, address: str, token_ids: Iterable[int],
                      policy: RetryPolicy = RetryPolicy(attempts=3, timeout=20.0)) -> list[Refresh]:
    results = []
    for token_id in token_ids:
        url = f"{api.rstrip('/')}/api/v2/chain/{chain}/contract/{address}/nfts/{token_id}/refresh"
        try:
            response = send("POST", url, headers={"X-API-KEY": key, "Accept": "application/json"}, policy=policy,
                            ok_status=lambda status: status < 500 and status != 429)
        except RemoteError as exc:  # a marketplace being down must not fail a repair that is already done
            results.append(Refresh(token_id, False, f"not answered ({type(exc).__name__})"))
            continue
        results.append(Refresh(token_id, response.ok, f"HTTP {response.status_code}"))
    return results


def refresh_minted_tokens(ws: "Workspace", minted: list[int]) -> list[dict[str, Any]]:
    """After the base URI moved, every minted token's tokenURI changed: ask OpenSea to re-read each."""
    key = secret_from_env(OPENSEA_KEY_ENV)
    address = ws.deployed_contract()
    if not key or address is None or not minted:
        return []
    chain = CHAIN_SLUGS.get(ws.spec.chain.endpoint()[0].chain_id)
    if chain is None:
        return [Refresh(t, False, "OpenSea does not list this chain").to_json() for t in minted]
    api = os.environ.get(OPENSEA_API_ENV, OPENSEA_API)
    return [r.to_json() for r in request_refreshes(api, key, chain, address, minted)]
