"""The static mint page built from the manifest, and where it is published."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mintprep.page.build import PageBuild, build_page, page_config, read_page_config, render_site

__all__ = ["PageBuild", "build_page", "page_config", "read_page_config", "render_site"]


def __getattr__(name: str) -> Any:
    # The builder (and its chain imports) loads on first use: reading `page:` settings, which every command does
    # with the collection file, must not pay for it.
    if name in __all__:
        from mintprep.page import build

        return getattr(build, name)
    raise AttributeError(name)
