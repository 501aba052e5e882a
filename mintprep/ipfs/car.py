"""CAR v1 (ipld.io/specs/transport/car/carv1): write blocks as given, read them back checking each hash.

A CAR is `varint(len(header)) header` then sections `varint(len(cid)+len(block)) cid block`; the
header is the DAG-CBOR map {"roots": [CID…], "version": 1}. Writers here emit the order they are
given (the importer gives DFS pre-order, each block once); readers verify every block against its CID.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from mintprep.base import CarError
from mintprep.ipfs.cid import CID, decode_varint, encode_varint
from mintprep.ipfs.unixfs import Block

MAX_SECTION = 4 * 1024 * 1024  # well above kubo's 2 MiB block limit; refuses a garbage length early


# ---------------------------------------------------------------- header (a fixed DAG-CBOR shape)


def _cbor_head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes((major << 5 | value,))
    for info, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * width):
            return bytes((major << 5 | info,)) + value.to_bytes(width, "big")
    raise ValueError("CBOR length too large")


def encode_header(roots: Sequence[CID]) -> bytes:
    def text(value: str) -> bytes:
        return _cbor_head(3, len(value)) + value.encode()

    # DAG-CBOR sorts map keys by length first: "roots" (5) before "version" (7).
    encoded_roots = b"".join(
        b"\xd8\x2a" + _cbor_head(2, len(bytes(root)) + 1) + b"\x00" + bytes(root) for root in roots
    )
    return _cbor_head(5, 2) + text("roots") + _cbor_head(4, len(roots)) + encoded_roots + text("version") + b"\x01"


def _decode_cbor(data: bytes, pos: int) -> tuple[object, int]:
    """Decode the DAG-CBOR subset a CAR header uses: maps, arrays, strings, bytes, uints, tag 42."""
    if pos >= len(data):
        raise CarError("CAR header ends early")
    major, info = data[pos] >> 5, data[pos] & 31
    pos += 1
    if info < 24:
        value = info
    elif info <= 27:
        width = 1 << (info - 24)
        value, pos = int.from_bytes(data[pos : pos + width], "big"), pos + width
    else:
        raise CarError("CAR header uses indefinite-length CBOR")
    if major == 0:
        return value, pos
    if major in (2, 3):
        chunk, pos = data[pos : pos + value], pos + value
        return (chunk if major == 2 else chunk.decode()), pos
    if major == 4:
        items = []
        for _ in range(value):
            item, pos = _decode_cbor(data, pos)
            items.append(item)
        return items, pos
    if major == 5:
        mapping = {}
        for _ in range(value):
            key, pos = _decode_cbor(data, pos)
            mapping[key], pos = _decode_cbor(data, pos)
        return mapping, pos
    if major == 6 and value == 42:
        link, pos = _decode_cbor(data, pos)
        if not isinstance(link, bytes) or not link.startswith(b"\x00"):
            raise CarError("CAR header has a malformed CID link")
        try:
            return CID.from_bytes(link[1:]), pos
        except ValueError as exc:
            raise CarError(f"CAR header root is not a supported CID: {exc}") from None
    raise CarError(f"CAR header uses unsupported CBOR major type {major}")


def decode_header(data: bytes) -> list[CID]:
    header, end = _decode_cbor(data, 0)
    if end != len(data) or not isinstance(header, dict) or header.get("version") != 1:
        raise CarError("not a CAR v1 header")
    roots = header.get("roots")
    if not isinstance(roots, list) or not all(isinstance(root, CID) for root in roots):
        raise CarError("CAR header roots are not a list of CIDs")
    return roots


# ---------------------------------------------------------------- writing


def iter_car(roots: Sequence[CID], blocks: Iterable[Block]) -> Iterator[bytes]:
    """The CAR as byte pieces, for streaming to a file or an HTTP body without holding it whole."""
    header = encode_header(roots)
    yield encode_varint(len(header)) + header
    for block in blocks:
        cid = bytes(block.cid)
        yield encode_varint(len(cid) + len(block.data)) + cid
        yield block.data


def write_car(roots: Sequence[CID], blocks: Iterable[Block], out: BinaryIO) -> int:
    """Write a CAR to `out`; return the number of bytes written."""
    written = 0
    for piece in iter_car(roots, blocks):
        out.write(piece)
        written += len(piece)
    return written


def car_bytes(roots: Sequence[CID], blocks: Iterable[Block]) -> bytes:
    return b"".join(iter_car(roots, blocks))


# ---------------------------------------------------------------- reading


@dataclass
class CarReader:
    """Iterate a CAR's blocks, each checked against its CID; `roots` is read on construction."""

    stream: BinaryIO
    verify: bool = True

    def __post_init__(self) -> None:
        length = self._read_varint(allow_eof=False)
        if length is None or length > MAX_SECTION:
            raise CarError("CAR header length is missing or absurd")
        self.roots = decode_header(self._read_exact(length))

    def __iter__(self) -> Iterator[Block]:
        while (length := self._read_varint(allow_eof=True)) is not None:
            if length > MAX_SECTION:
                raise CarError(f"CAR section of {length} bytes exceeds the {MAX_SECTION}-byte limit")
            section = self._read_exact(length)
            try:
                cid, start = CID.read_prefix(section, 0)
            except ValueError as exc:
                raise CarError(f"CAR section has an unsupported CID: {exc}") from None
            data = section[start:]
            if self.verify and not cid.matches(data):
                raise CarError(f"block {cid} in the CAR does not match its CID")
            yield Block(cid, data)

    def _read_exact(self, length: int) -> bytes:
        data = self.stream.read(length)
        while len(data) < length:
            more = self.stream.read(length - len(data))
            if not more:
                raise CarError(f"CAR is truncated: wanted {length} bytes, got {len(data)}")
            data += more
        return data

    def _read_varint(self, *, allow_eof: bool) -> int | None:
        raw = bytearray()
        while True:
            byte = self.stream.read(1)
            if not byte:
                if raw or not allow_eof:
                    raise CarError("CAR is truncated inside a length prefix")
                return None
            raw += byte
            if not byte[0] & 0x80:
                return decode_varint(bytes(raw))[0]
            if len(raw) >= 10:
                raise CarError("CAR length prefix is not a valid varint")

