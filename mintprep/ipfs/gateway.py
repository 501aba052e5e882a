"""Trustless gateways (specs: trustless-gateway, path-gateway): a verifying client and a read-only server.

Client: fetch `?format=car` for the whole DAG, then any block the stream lacked with `?format=raw`, and
walk from our own root checking every hash; a CAR's own header roots are ignored, as the spec says.
Server: `/ipfs/<cid>[/path]` over the local block store, with `?format=raw`, `?format=car` (DFS, no
duplicates; on a path, rooted at the requested CID with the blocks along the path and `dag-scope` block, entity
or all, as IPIP-402 specifies) and plain file bytes, for `mintprep serve` and for tests that need a gateway.
"""

from __future__ import annotations

import io
from dataclasses import replace

import html
import mimetypes
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

import requests

from mintprep.base import MintprepError, ResponseTooLarge, ServiceUnavailable, UserError
from mintprep.net import RetryPolicy, pooled_session, send
from mintprep.ipfs.car import CarReader, iter_car
from mintprep.ipfs.cid import CID, RAW, as_cid
from mintprep.ipfs.dagpb import DIRECTORY, HAMT_SHARD, SYMLINK, decode_pbnode, decode_unixfs
from mintprep.ipfs.dag import MAX_BLOCK_BYTES, BlockFetcher
from mintprep.ipfs.errors import BlockNotFound, TooLarge
from mintprep.ipfs.reader import iter_file
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import Block, hamt_hash, hamt_label
from mintprep.ipfs.verify import VerifyReport, verify_dag

CAR_MEDIA_TYPE = "application/vnd.ipld.car"
RAW_MEDIA_TYPE = "application/vnd.ipld.raw"


def verify_from_car(root: CID | str, car_blocks: Callable[[], Iterable["Block"]],
                    fetch_block: BlockFetcher) -> VerifyReport:
    """`verify_dag` over the blocks of one CAR of the DAG (one request, not one per block); whatever the CAR lacks
    (it failed, was truncated, or a block is corrupt) is fetched block by block. `car_blocks` may raise
    MintprepError (a CarError, a RemoteError): the walk then fetches what it lacks."""
    received: dict[CID, bytes] = {}
    try:
        for block in car_blocks():
            received[block.cid] = block.data
    except ServiceUnavailable:
        raise  # the service is down: asking it block by block would only wait the give-up time again
    except (MintprepError, requests.RequestException):
        pass  # a truncated or failed stream: whatever it lacked is fetched block by block

    def fetch(cid: CID) -> bytes | None:
        return received.pop(cid) if cid in received else fetch_block(cid)

    return verify_dag(root, fetch)


class TrustlessGateway:
    """A gateway read through its trustless formats only: nothing it says is believed unhashed."""

    def __init__(
        self,
        base_url: str,
        *,
        session: requests.Session | None = None,
        policy: RetryPolicy = RetryPolicy(attempts=4, timeout=60.0),
        sleep: Callable[[float], None] = time.sleep,
        concurrency: int = 1,
        max_block_bytes: int = MAX_BLOCK_BYTES,
    ) -> None:
        """`concurrency`: threads that will read through it at once (its own session keeps that many connections);
        `max_block_bytes`: a `?format=raw` answer is cut off past it as it arrives (a 50 MB "block" is not read)."""
        self.base_url = base_url.rstrip("/")
        self._session = session or pooled_session(concurrency)
        self._policy = policy
        self._sleep = sleep
        self._max_block_bytes = max_block_bytes

    def _get(self, cid: CID, media_type: str, policy: RetryPolicy | None = None, **params: str) -> requests.Response:
        return send(
            "GET",
            f"{self.base_url}/ipfs/{cid}",
            session=self._session,
            policy=policy or self._policy,
            sleep=self._sleep,
            ok_status=lambda status: status < 400 or status == 404,
            headers={"Accept": media_type},
            params=params,
        )

    def fetch_block(self, cid: CID | str) -> bytes | None:
        """One block via `?format=raw`; None when the gateway says 404, TooLarge past `max_block_bytes`. Unchecked:
        callers hash it."""
        cid = as_cid(cid)
        try:
            response = self._get(cid, RAW_MEDIA_TYPE, replace(self._policy, max_body_bytes=self._max_block_bytes),
                                 format="raw")
        except ResponseTooLarge:
            raise TooLarge(f"block {cid} is over the {self._max_block_bytes}-byte block limit "
                           "(ipfs.max_block_bytes)") from None
        return None if response.status_code == 404 else response.content

    def verify(self, root: CID | str) -> VerifyReport:
        root = as_cid(root)

        def car_blocks() -> Iterable[Block]:
            response = self._get(root, CAR_MEDIA_TYPE, format="car", **{"dag-scope": "all"})
            if response.status_code != 200:
                return []
            return CarReader(io.BytesIO(response.content), verify=False)  # read by `send`, capped by its policy

        return verify_from_car(root, car_blocks, self.fetch_block)


# ---------------------------------------------------------------- read-only gateway server


class _NotFound(Exception):
    pass


def _resolve_path(store: BlockStore, root: CID, segments: list[str], path: list[CID] | None = None) -> CID:
    """Follow `segments` through basic and HAMT-sharded directories; each block read on the way is appended to
    `path` (what a client needs to verify the last CID really sits under `root`)."""
    cid = root
    for segment in segments:
        cid = _lookup(store, cid, segment, path if path is not None else [])
    return cid


def _lookup(store: BlockStore, directory: CID, name: str, path: list[CID]) -> CID:
    node = decode_pbnode(store.get(directory))
    path.append(directory)
    kind = decode_unixfs(node.data or b"").type
    if kind == DIRECTORY:
        for link in node.links:
            if link.name == name:
                return link.cid
        raise _NotFound(name)
    if kind != HAMT_SHARD:
        raise _NotFound(name)
    hashed = hamt_hash(name)
    depth = 0
    while True:
        label = hamt_label(hashed, depth, decode_unixfs(node.data or b"").fanout or 256)
        for link in node.links:
            if link.name == label + name:
                return link.cid
            if link.name == label:  # a sub-shard: descend with the next bits of the hash
                node = decode_pbnode(store.get(link.cid))
                path.append(link.cid)
                depth += 1
                break
        else:
            raise _NotFound(name)


def _car_blocks(store: BlockStore, path: list[CID], cid: CID, scope: str) -> Iterable[Block]:
    """The trustless gateway's CAR for a path (IPIP-402): the blocks along the path from the requested root, then
    the terminal entity as `scope` asks: `block` its block alone; `entity` a file whole, or a directory's own
    block(s) (a HAMT's shards, not its entries); `all` everything under it. Each block once, in that order."""
    sent: set[CID] = set()
    for on_path in path:
        if on_path not in sent:
            sent.add(on_path)
            yield Block(on_path, store.get(on_path))
    if scope == "block":
        terminal: Iterable[Block] = [Block(cid, store.get(cid))]
    elif scope == "entity" and cid.codec != RAW and decode_unixfs(
            decode_pbnode(store.get(cid)).data or b"").type in (DIRECTORY, HAMT_SHARD, SYMLINK):
        terminal = _directory_blocks(store, cid)
    else:  # `all`, or a file's entity: every block of it
        terminal = store.iter_dag(cid)
    for block in terminal:
        if block.cid not in sent:
            sent.add(block.cid)
            yield block


def _directory_blocks(store: BlockStore, cid: CID) -> Iterator[Block]:
    """A directory's own blocks: its node, and for a HAMT every shard (links named by a bare bucket label)."""
    data = store.get(cid)
    yield Block(cid, data)
    node = decode_pbnode(data)
    unixfs = decode_unixfs(node.data or b"")
    if unixfs.type == HAMT_SHARD:
        label_length = len(f"{(unixfs.fanout or 256) - 1:X}")
        for link in node.links:
            if len(link.name) == label_length:
                yield from _directory_blocks(store, link.cid)


def _listing(store: BlockStore, cid: CID, path: str) -> bytes:
    node = decode_pbnode(store.get(cid))
    rows = "".join(
        f'<li><a href="{html.escape(quote(path.rstrip("/") + "/" + link.name))}">{html.escape(link.name)}</a></li>'
        for link in node.links
    )
    return f"<!doctype html><title>{html.escape(path)}</title><ul>{rows}</ul>".encode()


def make_gateway_app(store: BlockStore) -> Callable[..., Iterable[bytes]]:
    """A WSGI app serving `/ipfs/<cid>[/path]` from `store`, read-only; mount it under `/ipfs/`."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def reply(status: str, body: Iterable[bytes] | bytes, content_type: str, **headers: str) -> Iterable[bytes]:
            head = [("Content-Type", content_type), ("X-Content-Type-Options", "nosniff")]
            head += [(key.replace("_", "-"), value) for key, value in headers.items()]
            start_response(status, head)
            if environ["REQUEST_METHOD"] == "HEAD":
                return []
            return [body] if isinstance(body, bytes) else body

        if environ["REQUEST_METHOD"] not in ("GET", "HEAD"):
            return reply("405 Method Not Allowed", b"read-only gateway\n", "text/plain", Allow="GET, HEAD")
        parts = environ.get("PATH_INFO", "").split("/")
        if len(parts) < 3 or parts[1] != "ipfs" or not parts[2]:
            return reply("404 Not Found", b"use /ipfs/<cid>\n", "text/plain")
        try:
            root = as_cid(parts[2])
        except UserError as exc:
            return reply("400 Bad Request", f"{exc}\n".encode(), "text/plain")
        query = parse_qs(environ.get("QUERY_STRING", ""))
        accept = environ.get("HTTP_ACCEPT", "")
        wanted = query.get("format", [""])[0] or (
            "car" if CAR_MEDIA_TYPE in accept else "raw" if RAW_MEDIA_TYPE in accept else ""
        )
        segments = [unquote(segment) for segment in parts[3:] if segment]
        try:
            path: list[CID] = []
            cid = _resolve_path(store, root, segments, path)
            if wanted == "raw":
                return reply("200 OK", store.get(cid), RAW_MEDIA_TYPE, Cache_Control="public, max-age=29030400, immutable")
            if wanted == "car":
                scope = query.get("dag-scope", ["all"])[0]
                if scope not in ("block", "entity", "all"):
                    return reply("400 Bad Request", b"dag-scope is block, entity or all\n", "text/plain")
                if not store.has(cid):
                    raise BlockNotFound(str(cid))
                return reply("200 OK", iter_car([root], _car_blocks(store, path, cid, scope)),
                             f"{CAR_MEDIA_TYPE}; version=1; order=dfs; dups=n")
            return _deserialized(store, cid, segments, environ, reply)
        except (BlockNotFound, _NotFound):
            return reply("404 Not Found", f"{environ.get('PATH_INFO')} not found in the local store\n".encode(), "text/plain")

    return app


def _deserialized(store: BlockStore, cid: CID, segments: list[str], environ: dict[str, Any], reply: Any) -> Iterable[bytes]:
    if cid.codec == RAW:
        return reply("200 OK", store.get(cid), _guess_type(segments))
    kind = decode_unixfs(decode_pbnode(store.get(cid)).data or b"").type
    if kind in (DIRECTORY, HAMT_SHARD):
        try:
            index = _lookup(store, cid, "index.html", [])
        except _NotFound:
            return reply("200 OK", _listing(store, cid, environ.get("PATH_INFO", "/")), "text/html; charset=utf-8")
        return reply("200 OK", b"".join(iter_file(index, store.get)), "text/html; charset=utf-8")
    if kind == SYMLINK:
        return reply("200 OK", decode_unixfs(decode_pbnode(store.get(cid)).data or b"").data or b"", "text/plain")
    return reply("200 OK", iter_file(cid, store.get), _guess_type(segments))


def _guess_type(segments: list[str]) -> str:
    guessed = mimetypes.guess_type(segments[-1])[0] if segments else None
    return guessed or "application/octet-stream"


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


class _ThreadingWSGIServer(ThreadingHTTPServer, WSGIServer):
    daemon_threads = True


def serve_gateway(store: BlockStore, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Start the read-only gateway in a daemon thread; `server.server_address` says where it listens.

    Call `server.shutdown()` to stop it. Binds 127.0.0.1 by default: a preview, not a public service.
    """
    server = _ThreadingWSGIServer((host, port), _QuietHandler)
    server.set_app(make_gateway_app(store))
    threading.Thread(target=server.serve_forever, name="mintprep-gateway", daemon=True).start()
    return server
