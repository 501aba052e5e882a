"""`mintprep serve`: the page and its images on 127.0.0.1, for a look before publishing."""

from __future__ import annotations

import tempfile
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator
from urllib.parse import unquote, urlsplit

from mintprep.base import UserError
from mintprep.ipfs import BlockStore, serve_gateway
from mintprep.page.build import PageBuild
from mintprep.page.headers import headers_for, parse_headers
from mintprep.page.publish import build_collection_page, collection_page_inputs, live_profile

if TYPE_CHECKING:
    from mintprep.state import Workspace


@dataclass(frozen=True)
class Preview:
    url: str  # the page
    gateway: str  # where its images come from: the local gateway, or the configured one
    build: PageBuild


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a site folder quietly, adding the headers its `_headers` file gives each path, as the host will."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def end_headers(self) -> None:
        rules = Path(self.directory, "_headers")
        if rules.is_file():
            path = unquote(urlsplit(self.path).path)
            for name, value in headers_for(parse_headers(rules.read_text(encoding="utf-8")), path).items():
                self.send_header(name, value)
        super().end_headers()


@contextmanager
def preview(ws: "Workspace", *, host: str = "127.0.0.1", port: int = 0) -> Iterator[Preview]:
    """Serve the collection's page until the block exits.

    With the `local` IPFS backend the images come from a gateway over the embedded block store, so the
    preview works offline; other backends keep the configured gateway. The page is built into a temp
    folder: the preview's gateway URL must not leak into the site that gets published.
    """
    col = ws.col
    with ExitStack() as stack:
        local_gateway = None
        if col.spec.ipfs.backend == "local":
            local_gateway = serve_gateway(BlockStore(col.state.ipfs), host=host)
            stack.callback(local_gateway.server_close)
            stack.callback(local_gateway.shutdown)
        gateway = f"http://{host}:{local_gateway.server_address[1]}" if local_gateway else None
        inputs = collection_page_inputs(col, ws.ledger, gateway=gateway, profile=live_profile(ws))
        site = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mintprep-preview-"))) / "site"
        build = build_collection_page(col, inputs, site)
        try:
            server = ThreadingHTTPServer((host, port), partial(SiteHandler, directory=str(site)))
        except OSError as exc:
            raise UserError(f"--port {port}: cannot listen on {host}:{port} ({exc.strerror})") from None
        stack.callback(server.server_close)
        threading.Thread(target=server.serve_forever, name="mintprep-preview", daemon=True).start()
        stack.callback(server.shutdown)
        yield Preview(f"http://{host}:{server.server_address[1]}/", inputs.gateway, build)
