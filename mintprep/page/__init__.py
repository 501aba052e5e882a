"""The static mint page built from the manifest, and where it is published."""

from mintprep.page.build import PageBuild, build_page, page_config, read_page_config, render_site

__all__ = ["PageBuild", "build_page", "page_config", "read_page_config", "render_site"]
