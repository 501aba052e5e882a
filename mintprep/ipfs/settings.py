"""The `ipfs:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from mintprep.model import StrictModel


class IpfsSettings(StrictModel):
    backend: Literal["local", "kubo", "psa", "pinata"] = "local"
    profile: Literal["kubo-cidv1", "unixfs-v0-2015", "unixfs-v1-2025"] = "kubo-cidv1"
    api_url: str | None = None
    token_env: str | None = None
    gateway: str = "https://ipfs.io"
