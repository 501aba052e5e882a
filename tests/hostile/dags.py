"""Hostile DAGs, built block by block as a stranger could publish them, and a trustless gateway stand-in that
serves them over `?format=raw` (the trustless gateway specification's block request) on 127.0.0.1."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from PIL import Image

from mintprep.ipfs.cid import CID, DAG_PB, RAW, encode_varint
from mintprep.ipfs.dagpb import DIRECTORY, FILE, HAMT_SHARD, MURMUR3_X64_64, PBLink, PBNode, UnixFSData
from tests.support.servers import JsonHandler, http_server

Blocks = dict[CID, bytes]


def put(blocks: Blocks, data: bytes, codec: int = DAG_PB) -> CID:
    cid = CID.for_block(data, version=1, codec=codec)
    blocks[cid] = data
    return cid


def png(seed: int) -> bytes:
    """A smooth 256x256 gradient, different for each seed, that passes the image guards (noise does not)."""
    y, x = np.mgrid[0:256, 0:256]
    pixels = np.stack([x, y, (x + y + 40 * seed) % 256], axis=2).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "PNG")
    return out.getvalue()


def directory(blocks: Blocks, entries: dict[str, CID]) -> CID:
    links = tuple(PBLink(cid, name, 0) for name, cid in sorted(entries.items()))
    return put(blocks, PBNode(links, UnixFSData(DIRECTORY).encode()).encode())


def metadata_root(blocks: Blocks, documents: dict[str, CID]) -> CID:
    """A metadata directory over `documents` (name -> a metadata file's CID)."""
    return directory(blocks, documents)


def document(blocks: Blocks, token_id: int, image: CID) -> bytes:
    return f'{{"name":"#{token_id}","image":"ipfs://{image}"}}'.encode()


def honest_files(blocks: Blocks, count: int = 3) -> dict[str, CID]:
    """`count` tokens (1..count): each a small PNG and a metadata file naming it, as raw blocks."""
    return {f"{t}.json": put(blocks, document(blocks, t, put(blocks, png(t), RAW)), RAW) for t in range(1, count + 1)}


def identity_files(blocks: Blocks, count: int = 3) -> dict[str, CID]:
    """As `honest_files`, but each metadata file an identity CID: its bytes inline in the CID, never a block."""
    files = {}
    for t in range(1, count + 1):
        data = document(blocks, t, put(blocks, png(t), RAW))
        files[f"{t}.json"] = CID.from_bytes(bytes((1, RAW, 0)) + encode_varint(len(data)) + data)
    return files


def hamt_one_subshard(blocks: Blocks, levels: int = 3) -> CID:
    """A HAMT root whose 256 buckets all name one sub-shard, and so on `levels` deep, the last one holding the
    honest files: 256^levels paths to three distinct entries."""
    data = UnixFSData(HAMT_SHARD, data=b"\xff" * 32, hash_type=MURMUR3_X64_64, fanout=256).encode()
    bottom = tuple(PBLink(cid, f"{index:02X}{name}", 0)
                   for index, (name, cid) in enumerate(sorted(honest_files(blocks).items())))
    shard = put(blocks, PBNode(bottom, data).encode())
    for _ in range(levels):
        shard = put(blocks, PBNode(tuple(PBLink(shard, f"{b:02X}", 0) for b in range(256)), data).encode())
    return shard


def diamond_file(blocks: Blocks, levels: int = 27) -> CID:
    """A file DAG whose every node links one child twice, `levels` deep over a 1-byte leaf: 2^levels bytes
    claimed (128 MiB at 27) in levels + 1 blocks."""
    cid, size = put(blocks, b"x", RAW), 1
    for _ in range(levels):
        node = PBNode((PBLink(cid, "", size), PBLink(cid, "", size)),
                      UnixFSData(FILE, filesize=2 * size, blocksizes=(size, size)).encode())
        cid, size = put(blocks, node.encode()), 2 * size
    return cid


def huge_directory_block(blocks: Blocks, links: int = 1_000_000) -> CID:
    """One basic directory block of `links` entries (about 50 MB), written out as dag-pb bytes directly."""
    target = bytes(next(iter(honest_files(blocks, 1).values())))
    link_prefix = b"\x0a" + encode_varint(len(target)) + target
    parts = []
    for index in range(links):
        name = f"{index}.json".encode()
        body = link_prefix + b"\x12" + encode_varint(len(name)) + name + b"\x18\x01"
        parts.append(b"\x12" + encode_varint(len(body)) + body)
    unixfs = UnixFSData(DIRECTORY).encode()
    return put(blocks, b"".join(parts) + b"\x0a" + encode_varint(len(unixfs)) + unixfs)


@contextmanager
def block_gateway(blocks: Blocks) -> Iterator[str]:
    """A trustless gateway stand-in: `GET /ipfs/<cid>?format=raw` answers the block or 404; no CARs (a client
    falls back to blocks)."""

    class Handler(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802 (stdlib name)
            path, _, query = self.path.partition("?")
            data = None
            if "format=raw" in query:
                try:
                    data = blocks.get(CID.parse(path.rsplit("/", 1)[-1]))
                except Exception:  # noqa: BLE001 - a malformed request is a 404 here, as a gateway would answer 400
                    data = None
            if data is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.ipld.raw")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with http_server(Handler) as url:
        yield url
