"""`mintprep publish` and `mintprep serve`: thin wrappers over mintprep.commands (publish, serve)."""

from __future__ import annotations

import threading
from pathlib import Path

import typer

from mintprep.cli.app import app, console, print_json

COLLECTION = typer.Argument(..., exists=False, dir_okay=False, help="the collection.yaml")
JSON = typer.Option(False, "--json", help="print a JSON result on stdout")


@app.command("publish")
def publish_command(collection: Path = COLLECTION, as_json: bool = JSON) -> None:
    """Rebuild the mint page from the ledger and publish it to page.publish.target (ipfs, netlify or dir)."""
    from mintprep.collection import load_collection
    from mintprep.commands import publish_site

    result = publish_site(load_collection(collection))
    if as_json:
        print_json(result.as_json())
        return
    if result.site_cid:
        console.print(f"site CID: [bold]{result.site_cid}[/]", highlight=False)
    console.print(f"published to {result.target} ({len(result.uploaded)} file(s) sent):", highlight=False)
    print(result.location)


@app.command("serve")
def serve_command(
    collection: Path = COLLECTION,
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="port on 127.0.0.1 (0: any free port)"),
    as_json: bool = JSON,
) -> None:
    """Preview the mint page on 127.0.0.1, with its images from a local IPFS gateway; Ctrl-C stops it."""
    from mintprep.collection import load_collection
    from mintprep.commands import serving

    with serving(load_collection(collection), port=port) as running:
        if as_json:
            print_json({"url": running.url, "gateway": running.gateway, "site_digest": running.build.site_digest})
        else:
            console.print(f"serving the mint page at [bold]{running.url}[/] (images via {running.gateway}); "
                          "Ctrl-C stops it", highlight=False)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            console.print("stopped")
