"""A local server following OpenSea's v2 "Refresh NFT metadata" API (docs.opensea.io/reference/refresh_nft):
`POST /api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh`, key in `X-API-KEY`; 200 on accept,
401 for a wrong key (echoing the key back, as some services do, to prove mintprep never prints it)."""

from __future__ import annotations

import re

from tests.support.servers import JsonHandler

PATH = re.compile(r"^/api/v2/chain/(?P<chain>[a-z_]+)/contract/(?P<address>0x[0-9a-fA-F]{40})/nfts/(?P<id>\d+)/refresh$")


def refresh_handler(key: str, seen: list[tuple[str, str, int]], refuse: frozenset[int] = frozenset()):
    class Handler(JsonHandler):
        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            match = PATH.match(self.path)
            if match is None:
                return self.reply_json(404, {"errors": ["not found"]})
            if self.headers.get("X-API-KEY") != key:
                return self.reply_json(401, {"detail": f"bad key {self.headers.get('X-API-KEY')}"})
            token_id = int(match["id"])
            seen.append((match["chain"], match["address"], token_id))
            if token_id in refuse:
                return self.reply_json(400, {"errors": [f"token {token_id} not found"]})
            self.reply_json(200, {"message": "Refresh requested"})

    return Handler
