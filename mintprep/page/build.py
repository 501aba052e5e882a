"""Build the static mint page from a collection manifest.

Pure core (`render_site`: page data → file bytes) and one I/O step (`build_page` swaps the folder in).
Everything the page shows about the collection travels as JSON, in a `type="application/json"`
element of index.html or in the gallery's chunk files (see gallery.py), and is inserted by app.js
with textContent, so the CSP can forbid inline script and a trait value such as `<img onerror=…>`
stays text.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import urlsplit

from eth_utils import is_hex_address, to_checksum_address

from mintprep.base import (CONFIG_ELEMENT_ID, UserError, content_key, ensure_replaceable, replace_tree, sha256_hex,
                           shown, shown_text)
from mintprep.chain import SalePhase, allowlist_files, page_allowlist
from mintprep.collection import TRANSFER_TOPIC
from mintprep.page.chains import chain_info
from mintprep.net import collection_url
from mintprep.page.mint_call import drop_description
from mintprep.page.gallery import read_gallery, split_gallery
from mintprep.page.headers import render_headers, site_header_rules

if TYPE_CHECKING:
    from mintprep.collection import Collection

PAGE_FORMAT = 5  # 2: gallery in chunk files beside index.html; 3: sale phases, allowlist files; 4: allowlist shards;
# 5: the mint description (page.mint_call) in place of MintprepDrop's ABI
STATIC_ASSETS = ("app.js", "style.css")
_CID = re.compile(r"^[A-Za-z0-9]{10,128}$")


@dataclass(frozen=True)
class PageBuild:
    out_dir: Path
    index: Path
    files: dict[str, str]  # relative POSIX path -> sha256 hex of its bytes
    site_digest: str  # content key over `files`: equal digests, byte-identical sites
    written: bool  # False when the folder already held exactly this site


def build_page(
    col: "Collection",
    manifest: Mapping[str, Any],
    out_dir: Path,
    *,
    contract: str | None,
    chain_id: int,
    rpc_url: str,
    gateway: str,
    phases: Sequence[SalePhase] = (),
    mint: Mapping[str, Any] | None = None,
) -> PageBuild:
    """Write the mint page for `manifest` into `out_dir`, replacing what was there in one swap.

    `mint` is the contract's mint description (page.mint_call.mint_description); MintprepDrop's by default.
    Deterministic: the same inputs give byte-identical files (and `site_digest`), and a rebuild
    that changes nothing writes nothing.
    """
    config = page_config(manifest, contract=contract, chain_id=chain_id, rpc_url=rpc_url, gateway=gateway,
                         phases=phases, mint=mint)
    files = {**render_site(config), **allowlist_files(list(phases))}
    out_dir = Path(out_dir).resolve()
    ensure_replaceable(out_dir, protect=(col.path, col.state_dir))
    written = replace_tree(files, out_dir)
    digests = {rel: sha256_hex(data) for rel, data in sorted(files.items())}
    return PageBuild(out_dir, out_dir / "index.html", digests, content_key(digests), written)


def page_config(
    manifest: Mapping[str, Any], *, contract: str | None, chain_id: int, rpc_url: str, gateway: str,
    phases: Sequence[SalePhase] = (), mint: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON the page runs on, gallery `tokens` included; `read_page_config` gives it back from a built site."""
    if not isinstance(chain_id, int) or isinstance(chain_id, bool) or chain_id <= 0:
        raise UserError(f"chain id must be a positive integer, got {chain_id!r}")
    chain = chain_info(chain_id)
    rpc = _http_url("RPC URL (chain.rpc_url / page.rpc_url)", rpc_url)
    return {
        "format": PAGE_FORMAT,
        "collection": {
            "name": shown_text(_text(manifest, "name")),
            "symbol": shown_text(_text(manifest, "symbol")),
            "description": shown_text(str(manifest.get("description") or "")),
            "size": _field(manifest, "size", int),
            "provenance_hash": _text(manifest, "provenance_hash"),
        },
        # None: a hidden drop before its reveal (the page must not lead to the real metadata).
        "metadata_root": None if manifest.get("hidden") is True else
        _cid(_text(manifest, "metadata_root"), "manifest.metadata_root"),
        "contract": _contract(contract),
        "marketplace": collection_url(chain_id, _contract(contract)),
        "chain": {
            "id": chain_id,
            "hex": hex(chain_id),
            "name": chain.name,
            "rpc_url": rpc,
            "explorer": chain.explorer,
            "add": chain.wallet_params(rpc),
        },
        "gateway": _http_url("gateway (page.gateway / ipfs.gateway)", gateway).rstrip("/"),
        # What the page reads and calls on the contract: data, so app.js stays one client for every family.
        "mint": None if contract is None else dict(mint or drop_description()),
        "transfer_topic": TRANSFER_TOPIC,
        # Names and allowlist files only: times, prices and caps are read from the contract, never trusted from here.
        "phases": [{"name": p.name, "allowlist": page_allowlist(i, p.allowlist) if p.allowlist else None}
                   for i, p in enumerate(phases)],
        "tokens": [_token(t, i) for i, t in enumerate(_field(manifest, "tokens", list))],
    }


def render_site(config: Mapping[str, Any]) -> dict[str, bytes]:
    """Page config → {relative path: bytes}. No clock, no randomness: same config, same bytes.

    The tokens go to the gallery's chunk files; index.html embeds the rest and where the chunks are,
    so its size does not grow with the collection.
    """
    static = resources.files("mintprep.page").joinpath("static")
    # The template ships without its indentation too (whitespace between its tags renders the same).
    template = Template(compact_source(static.joinpath("index.html").read_text(encoding="utf-8")))
    gallery = split_gallery(config["tokens"])
    embedded = {key: value for key, value in config.items() if key != "tokens"}
    embedded["gallery"] = gallery.section
    collection = config["collection"]
    csp = content_security_policy(config)
    index = template.substitute(
        title=_html_text(collection["name"]),
        description=_html_text(collection["description"] or collection["name"]),
        csp=_html_text(csp),
        config_id=CONFIG_ELEMENT_ID,
        config_json=script_safe_json(embedded),
    )
    files = {"index.html": index.encode(), "_headers": render_headers(site_header_rules(csp))}
    files.update({name: (compact_css if name.endswith(".css") else compact_source)(
        static.joinpath(name).read_text(encoding="utf-8")).encode() for name in STATIC_ASSETS})
    files.update(gallery.files)
    return files


def compact_source(text: str) -> str:
    """app.js / style.css as shipped: without indentation, blank lines and whole-line // comments.

    Safe for these two files because neither has a string or template literal spanning lines (a test checks);
    it keeps the first load under its weight budget without a minifier in the build.
    """
    kept = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in kept if line and not line.startswith("//")) + "\n"


_CSS_STRING = re.compile(r"(\"[^\"]*\"|'[^']*')")
_CSS_PUNCTUATION_SPACE = re.compile(r"\s*([{};:,>])\s*")


def compact_css(text: str) -> str:
    """style.css as shipped: `compact_source` without whole-line comments, then no spaces around { } ; : , > and
    no `;` before `}` outside quoted strings.

    Safe for this file: no selector puts a space before a pseudo-class (a test checks), and strings are kept."""
    lines = []
    for line in compact_source(text).splitlines():
        if line.startswith("/*") and line.endswith("*/"):
            continue  # a whole-line comment
        parts = _CSS_STRING.split(line)
        lines.append("".join(part if index % 2 else _CSS_PUNCTUATION_SPACE.sub(r"\1", part).replace(";}", "}")
                             for index, part in enumerate(parts)))
    return "\n".join(lines) + "\n"


def content_security_policy(config: Mapping[str, Any]) -> str:
    """Scripts, styles and gallery chunks only from the page's own origin; otherwise only the RPC and the gateway."""
    rpc_origin = f" {_origin(config['chain']['rpc_url'])}" if config["contract"] else ""
    return "; ".join([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        # data: is for EIP-6963 wallet icons, which the spec requires to be data URIs.
        f"img-src 'self' data: {_origin(config['gateway'])}",
        f"connect-src 'self'{rpc_origin}",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def script_safe_json(value: Any) -> str:
    """JSON that cannot end its <script> element or open a comment, however hostile the strings."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def read_page_config(index_html: Path) -> dict[str, Any]:
    """What a built page shows (metadata root, contract, chain, tokens): what `audit` compares.

    `tokens` is read from the gallery chunks beside index.html; chunks that are missing or unreadable
    are listed under `gallery.unreadable` and their tokens are absent, as they are for a visitor.
    """
    index_html = Path(index_html)
    text = index_html.read_text(encoding="utf-8")
    match = re.search(rf'<script type="application/json" id="{CONFIG_ELEMENT_ID}">(.*?)</script>', text, re.S)
    if match is None:
        raise UserError(f"{index_html}: not a mintprep page (no {CONFIG_ELEMENT_ID} element)")
    config = json.loads(match.group(1))
    if "tokens" in config:  # format 1 embedded the whole gallery
        return config
    try:
        tokens, unreadable = read_gallery(index_html.parent, config.get("gallery"))
    except ValueError as exc:
        raise UserError(f"{index_html}: {exc}") from None
    return {**config, "tokens": tokens, "gallery": {**config["gallery"], "unreadable": unreadable}}


def _html_text(text: str) -> str:
    """Escaped for element text and double-quoted attributes (single quotes, as in CSP keywords, stay)."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def _token(token: Any, position: int) -> list[Any]:
    """[token id, name, image CID, [[trait, value], …]]: compact, since the chunk files hold thousands."""
    where = f"manifest.tokens[{position}]"
    if not isinstance(token, Mapping):
        raise UserError(f"{where}: expected a mapping, got {type(token).__name__}")
    attributes = token.get("attributes") or []
    if not isinstance(attributes, list) or not all(isinstance(a, Mapping) and "value" in a for a in attributes):
        raise UserError(f"{where}.attributes: expected a list of {{trait_type, value}} mappings")
    return [
        _field(token, "token_id", int, where),
        shown_text(_text(token, "name", where)),
        _cid(_text(token, "image_cid", where), f"{where}.image_cid"),
        [[shown_text(str(a.get("trait_type", ""))), shown(a["value"])] for a in attributes],
    ]


def _field(data: Mapping[str, Any], key: str, kind: type, where: str = "manifest") -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise UserError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def _text(data: Mapping[str, Any], key: str, where: str = "manifest") -> str:
    value = _field(data, key, str, where)
    if not value:
        raise UserError(f"{where}.{key}: must not be empty")
    return value


def _cid(value: str, where: str) -> str:
    if not _CID.match(value):
        raise UserError(f"{where}: not a CID: {value!r}")
    return value


def _contract(address: str | None) -> str | None:
    if address is None:
        return None
    if not is_hex_address(address):
        raise UserError(f"chain.contract: not a 0x-prefixed 20-byte hex address: {address!r}")
    return to_checksum_address(address)


def _http_url(what: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{what}: must be an http(s) URL, got {url!r}")
    # The page is public: a URL carrying credentials would publish them.
    if parts.username or parts.password:
        raise UserError(f"{what}: must not carry user:password credentials (the page is public)")
    return url


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
