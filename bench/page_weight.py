"""Page weight without images, and which origins the page talks to.

    .venv/bin/python bench/page_weight.py [--tokens 77 10000] [--no-browser]

Weight: for a collection of N tokens, the first load (index.html, app.js, style.css and the first
gallery chunk) and the whole site, raw and gzip -9 (as a static host would serve them); the other
chunks load only as the visitor scrolls. Browser: the largest page is loaded in Debian's Chromium with
a contract configured; the RPC and the gateway are local stand-ins (a JSON-RPC stub answering every
eth_call with a zero word, and a path gateway); every request is classified by origin, and the
page's own files fetched on load are weighed. Goal: first load under 50 KB, 0 third-party origins.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.collection.config import load_collection  # noqa: E402
from mintprep.page import build_page, read_page_config  # noqa: E402
from tests.conftest import write_collection  # noqa: E402
from tests.page.conftest import QuietHandler, path_gateway, sample_collection, serve_dir  # noqa: E402
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.servers import http_server  # noqa: E402

CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


class RpcStub(QuietHandler):
    """Answers any JSON-RPC call; eth_call gets one zero word, so every view reads 0."""

    def do_OPTIONS(self) -> None:  # noqa: N802 - CORS preflight for the page's JSON POST
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "content-type")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": "0x" + "0" * 64}).encode()
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def weigh(site: Path) -> dict[str, Any]:
    gallery = read_page_config(site / "index.html")["gallery"]
    sizes = {p.relative_to(site).as_posix(): (p.stat().st_size, len(gzip.compress(p.read_bytes(), 9)))
             for p in sorted(site.rglob("*")) if p.is_file()}
    first_load = ["index.html", "app.js", "style.css", f"{gallery['path']}0.json"]
    chunks = [size for rel, size in sizes.items() if rel.startswith("gallery/")]
    return {
        "first_load": {"files": {rel: sizes[rel] for rel in first_load}, **_totals(sizes[rel] for rel in first_load)},
        "site": {"files": len(sizes), **_totals(sizes.values())},
        "gallery": {"chunks": len(chunks), "tokens_per_chunk": round(gallery["tokens"] / max(len(chunks), 1)),
                    "largest_chunk_raw_bytes": max((raw for raw, _ in chunks), default=0)},
    }


def _totals(sizes: Any) -> dict[str, int]:
    pairs = list(sizes)
    return {"raw_bytes": sum(raw for raw, _ in pairs), "gzip_bytes": sum(gz for _, gz in pairs)}


def origins_contacted(tokens: int, workdir: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    col = load_collection(write_collection(workdir / "col-browser"))
    sample = sample_collection(tokens)
    with path_gateway(sample.images) as gateway, http_server(RpcStub) as rpc:
        build = build_page(col, sample.manifest, workdir / "site-browser", contract=CONTRACT, chain_id=8453,
                           rpc_url=rpc, gateway=gateway)
        with serve_dir(build.out_dir) as site, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            urls: list[str] = []
            page.on("request", lambda r: urls.append(r.url))
            page.goto(site + "/index.html", wait_until="networkidle")
            browser.close()
        own = [urlsplit(url).path.lstrip("/") for url in urls if url.startswith(site + "/")]
        own_bytes = sum((build.out_dir / rel).stat().st_size for rel in own)
    seen = ["{0.scheme}://{0.netloc}".format(urlsplit(url)) for url in urls]
    roles = {site: "page", gateway: "gateway", rpc: "rpc"}
    by_role: dict[str, int] = {}
    for origin in seen:
        role = roles.get(origin, "third-party")
        by_role[role] = by_role.get(role, 0) + 1
    third = sorted({o for o in seen if o not in roles})
    return {"tokens": tokens, "requests_by_origin_role": by_role, "third_party_origins": third,
            "page_files_on_load": own, "page_bytes_on_load": own_bytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[77, 10_000])
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"weight": {}}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        col = load_collection(write_collection(workdir / "col"))
        for tokens in args.tokens:
            build = build_page(col, sample_collection(tokens).manifest, workdir / f"site-{tokens}", contract=CONTRACT,
                               chain_id=8453, rpc_url="https://mainnet.base.org", gateway="https://ipfs.io")
            report["weight"][tokens] = weigh(build.out_dir)
        if not args.no_browser and Path(CHROMIUM).exists():
            report["browser"] = origins_contacted(max(args.tokens), workdir)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
