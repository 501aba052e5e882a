"""The `page:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from mintprep.model import StrictModel


class PublishSettings(StrictModel):
    target: Literal["ipfs", "netlify", "dir"] = "ipfs"
    dir: str | None = Field(None, description="target: dir — folder the site is copied to (relative to the yaml)")
    netlify_site_id: str | None = Field(None, description="target: netlify — the site's API id (Site settings → Site ID)")
    # The token itself never appears in collection.yaml: only the name of the variable that holds it.
    netlify_token_env: str = Field("NETLIFY_AUTH_TOKEN", description="environment variable holding the Netlify token")
    netlify_api_url: str = Field("https://api.netlify.com", description="Netlify API base URL")

    @model_validator(mode="after")
    def _target_has_its_options(self) -> "PublishSettings":
        if self.target == "dir" and not self.dir:
            raise ValueError("target: dir needs `dir:` (the folder to copy the site to)")
        if self.target == "netlify" and not self.netlify_site_id:
            raise ValueError("target: netlify needs `netlify_site_id:` (Site settings → Site ID)")
        return self


class PageSettings(StrictModel):
    out: str = Field("site", description="folder the static mint page is built into (relative to the yaml)")
    gateway: str | None = Field(None, description="IPFS gateway the page loads images from; default: ipfs.gateway")
    rpc_url: str | None = Field(
        None, description="public RPC the page reads the contract through; default: chain.rpc_url or the network's"
    )
    publish: PublishSettings = PublishSettings()

    @field_validator("gateway", "rpc_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("https://", "http://")):
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value
