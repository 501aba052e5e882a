"""Page fixtures: a manifest whose images a local gateway serves, static HTTP servers, one Chromium per session."""

from __future__ import annotations

import base64
import hashlib
import io
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from PIL import Image

from mintprep.collection.config import Collection, load_collection
from mintprep.page.serve import SiteHandler
from tests.conftest import write_collection

from tests.support.servers import http_server

HOSTILE_TRAIT = '<img src=x onerror="window.__pwned=1;alert(1)">'


def raw_cid(data: bytes) -> str:
    """CIDv1 raw + sha2-256, base32: what `ipfs add --cid-version=1` prints for a file under one chunk."""
    digest = bytes([0x01, 0x55, 0x12, 0x20]) + hashlib.sha256(data).digest()
    return "b" + base64.b32encode(digest).decode().lower().rstrip("=")


@dataclass(frozen=True)
class SampleCollection:
    manifest: dict[str, Any]
    images: dict[str, bytes]  # CID -> PNG bytes, what the gateway serves


def sample_collection(size: int, *, hostile_token: int | None = None) -> SampleCollection:
    """A manifest shaped like the lead's manifest.json, with a distinct small PNG per token."""
    flowers, palettes = ["sunflower", "tulip", "poppy", "iris"], ["warm", "cool", "mono"]
    images: dict[str, bytes] = {}
    tokens = []
    for token_id in range(1, size + 1):
        hue = (token_id * 47) % 255
        buffer = io.BytesIO()
        art = Image.new("RGB", (64, 64), (hue, 200 - hue // 2, 120 + hue // 3))
        for xy in range(8, 56, 4):  # a diagonal of 2x2 pixel steps: blurred or crisp is plain to see
            art.paste((250, 240, 90), (xy, xy, xy + 2, xy + 2))
        art.save(buffer, "PNG")
        png = buffer.getvalue()
        cid = raw_cid(png)
        images[cid] = png
        flower = HOSTILE_TRAIT if token_id == hostile_token else flowers[token_id % len(flowers)]
        tokens.append({
            "token_id": token_id, "name": f"Sunflower Study #{token_id}", "image_cid": cid,
            "metadata_cid": raw_cid(f"{token_id}.json".encode()), "png_sha256": hashlib.sha256(png).hexdigest(),
            "attributes": [{"trait_type": "flower", "value": flower},
                           {"trait_type": "palette", "value": palettes[token_id % len(palettes)]}],
            "provenance": {"seed": token_id},
        })
    manifest = {
        "name": "Sunflower Study", "symbol": "SUNF",
        "description": "Seventy-seven small flowers, sampled at 64x64 and shown as pixel art.",
        "size": size, "metadata_root": raw_cid(b"metadata-root"),
        "provenance_hash": hashlib.sha256("".join(t["png_sha256"] for t in tokens).encode()).hexdigest(),
        "ipfs_profile": "kubo-cidv1", "tokens": tokens,
    }
    return SampleCollection(manifest, images)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (stdlib signature)
        pass


@contextmanager
def serve_dir(folder: Path) -> Iterator[str]:
    """The site as a static host serves it, headers from its `_headers` file included (what `serve` uses)."""
    with http_server(partial(SiteHandler, directory=str(folder))) as url:
        yield url


@contextmanager
def path_gateway(images: dict[str, bytes]) -> Iterator[str]:
    """A stand-in for an IPFS path gateway: GET /ipfs/<cid> answers the bytes (image/png) or 404."""

    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802  (stdlib name)
            data = images.get(self.path.removeprefix("/ipfs/"))
            self.send_response(200 if data else 404)
            self.send_header("Content-Type", "image/png" if data else "text/plain")
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

    with http_server(Handler) as url:
        yield url


@pytest.fixture
def collection(tmp_path: Path) -> Collection:
    return load_collection(write_collection(tmp_path / "col"))


@pytest.fixture(scope="session")
def large_sample() -> SampleCollection:
    """2,000 tokens, many gallery chunks; built once per session, so copy the manifest before changing it."""
    return sample_collection(2000)


@pytest.fixture(scope="session")
def wallet_shim() -> Callable[..., str]:
    source = (Path(__file__).parent / "eip1193_wallet.js").read_text()

    def script(rpc_url: str, account: str, *, legacy: bool = False) -> str:
        filled = source.replace("__RPC__", rpc_url).replace("__ACCOUNT__", account)
        return filled.replace("__LEGACY__", "true" if legacy else "false")

    return script

