"""The static mint page built from the manifest, its preview server, and where it is published (IPFS, Netlify, a
folder); `commands/publish.py` records where it went.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "build_page": "build", "page_config": "build", "PageBuild": "build", "read_page_config": "build",
    "render_site": "build",
    "build_collection_page": "publish", "collection_page_inputs": "publish", "live_profile": "publish",
    "page_manifest": "publish",
    "publish_collection": "publish", "PublishResult": "publish",
    "Preview": "serve", "preview": "serve",
})
