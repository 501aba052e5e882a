"""The `page:` section of collection.yaml."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Literal

from pydantic import Field, field_validator, model_validator

from mintprep.base import STATE_DIR_NAME, StrictModel
from mintprep.net import PublicUrl


def _own_folder(value: str) -> str:
    """A folder below the collection's own: the site is replaced whole, so it must never be `.`, `..`, `/etc`
    or the state folder. (Whether it holds files mintprep did not write is checked when the file is loaded.)"""
    parts = PurePosixPath(value.replace("\\", "/")).parts
    if not value.strip() or value != value.strip():
        raise ValueError(f"must name a folder (no surrounding spaces), got {value!r}")
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute() or PureWindowsPath(value).drive:
        raise ValueError(f"must be a folder relative to the collection file, not an absolute path, got {value!r}")
    if ".." in parts:
        raise ValueError(f"must stay inside the collection's folder (no `..`), got {value!r}")
    if not [part for part in parts if part != "."]:
        raise ValueError(f"must be a sub-folder, not the collection's own folder, got {value!r}")
    if [part for part in parts if part != "."][0] == STATE_DIR_NAME:
        raise ValueError(f"must not be inside the state folder {STATE_DIR_NAME}, got {value!r}")
    return value


class PublishSettings(StrictModel):
    target: Literal["ipfs", "netlify", "dir"] = "ipfs"
    dir: str | None = Field(None, description="target: dir — folder the site is copied to (relative to the yaml)")
    netlify_site_id: str | None = Field(None, description="target: netlify — the site's API id (Site settings → Site ID)")
    # The token itself never appears in collection.yaml: only the name of the variable that holds it.
    netlify_token_env: str = Field("NETLIFY_AUTH_TOKEN", description="environment variable holding the Netlify token")
    netlify_api_url: PublicUrl = Field("https://api.netlify.com", description="Netlify API base URL")

    @model_validator(mode="after")
    def _target_has_its_options(self) -> "PublishSettings":
        if self.target == "dir" and not self.dir:
            raise ValueError("target: dir needs `dir:` (the folder to copy the site to)")
        if self.target == "netlify" and not self.netlify_site_id:
            raise ValueError("target: netlify needs `netlify_site_id:` (Site settings → Site ID)")
        return self


class PageSettings(StrictModel):
    out: str = Field("site", description="folder the static mint page is built into (relative to the yaml)")
    gateway: PublicUrl | None = Field(None, description="IPFS gateway the page loads images from; default: ipfs.gateway")
    rpc_url: PublicUrl | None = Field(
        None, description="public RPC the page reads the contract through; default: chain.rpc_url or the network's"
    )
    mint_url: PublicUrl | None = Field(
        None, description="where collectors mint when the contract mints through something the page cannot call "
                          "(Manifold's claim extensions): the page links there instead of offering a mint button")
    publish: PublishSettings = PublishSettings()

    @field_validator("out")
    @classmethod
    def _out_is_own_folder(cls, value: str) -> str:
        return _own_folder(value)
