"""dag-pb nodes and the UnixFS `Data` message inside them, encoded exactly as boxo encodes them.

Byte order matters for CIDs: a PBNode is written Links first, then Data (non-canonical protobuf, as
go-codec-dagpb does); every link carries Hash, Name and Tsize even when Name is empty; UnixFS fields
are written in field-number order with `blocksizes` unpacked (proto2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mintprep.ipfs.cid import CID, DAG_PB, decode_varint, encode_varint

# UnixFS Data.Type values (boxo ipld/unixfs/pb/unixfs.proto)
RAW_TYPE, DIRECTORY, FILE, METADATA, SYMLINK, HAMT_SHARD = range(6)
MURMUR3_X64_64 = 0x22


def _field(number: int, wire_type: int) -> bytes:
    return encode_varint(number << 3 | wire_type)


def _bytes_field(number: int, value: bytes) -> bytes:
    return _field(number, 2) + encode_varint(len(value)) + value


def _uint_field(number: int, value: int) -> bytes:
    return _field(number, 0) + encode_varint(value)


@dataclass(frozen=True)
class PBLink:
    cid: CID
    name: str
    tsize: int

    def encode(self) -> bytes:
        body = _bytes_field(1, bytes(self.cid)) + _bytes_field(2, self.name.encode()) + _uint_field(3, self.tsize)
        return _bytes_field(2, body)


@dataclass(frozen=True)
class PBNode:
    links: tuple[PBLink, ...]
    data: bytes | None

    def encode(self) -> bytes:
        encoded = b"".join(link.encode() for link in self.links)
        return encoded if self.data is None else encoded + _bytes_field(1, self.data)


@dataclass(frozen=True)
class UnixFSData:
    type: int
    data: bytes | None = None
    filesize: int | None = None
    blocksizes: tuple[int, ...] = field(default=())
    hash_type: int | None = None
    fanout: int | None = None

    def encode(self) -> bytes:
        out = [_uint_field(1, self.type)]
        if self.data is not None:
            out.append(_bytes_field(2, self.data))
        if self.filesize is not None:
            out.append(_uint_field(3, self.filesize))
        out.extend(_uint_field(4, size) for size in self.blocksizes)
        if self.hash_type is not None:
            out.append(_uint_field(5, self.hash_type))
        if self.fanout is not None:
            out.append(_uint_field(6, self.fanout))
        return b"".join(out)


def _fields(data: bytes | memoryview):
    """Yield (field number, wire type, value) of a protobuf message; bytes values as memoryview slices."""
    view = memoryview(data)
    pos = 0
    while pos < len(view):
        key, pos = decode_varint(view, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, pos = decode_varint(view, pos)
        elif wire_type == 2:
            length, pos = decode_varint(view, pos)
            if pos + length > len(view):
                raise ValueError(f"field {number} runs past the end of the message")
            value, pos = view[pos : pos + length], pos + length
        elif wire_type == 5:
            value, pos = view[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire_type} in field {number}")
        yield number, wire_type, value


def decode_pbnode(block: bytes | memoryview) -> PBNode:
    """Parse a dag-pb block; raise ValueError if it is not one."""
    links: list[PBLink] = []
    data: bytes | None = None
    for number, wire_type, value in _fields(block):
        if number == 2 and wire_type == 2:
            links.append(_decode_link(value))
        elif number == 1 and wire_type == 2:
            data = bytes(value)
        else:
            raise ValueError(f"unexpected field {number} in a dag-pb node")
    return PBNode(tuple(links), data)


def _decode_link(body: memoryview) -> PBLink:
    cid, name, tsize = None, "", 0
    for number, wire_type, value in _fields(body):
        if number == 1 and wire_type == 2:
            cid = CID.from_bytes(value)
        elif number == 2 and wire_type == 2:
            name = bytes(value).decode()
        elif number == 3 and wire_type == 0:
            tsize = value
        else:
            raise ValueError(f"unexpected field {number} in a dag-pb link")
    if cid is None:
        raise ValueError("dag-pb link without a Hash")
    return PBLink(cid, name, tsize)


def decode_unixfs(data: bytes) -> UnixFSData:
    values: dict[int, object] = {}
    blocksizes: list[int] = []
    for number, _, value in _fields(data):
        if number == 4:
            blocksizes.append(value)  # type: ignore[arg-type]
        else:
            values[number] = bytes(value) if isinstance(value, memoryview) else value
    if 1 not in values:
        raise ValueError("UnixFS Data without a Type")
    return UnixFSData(
        type=values[1],  # type: ignore[arg-type]
        data=values.get(2),  # type: ignore[arg-type]
        filesize=values.get(3),  # type: ignore[arg-type]
        blocksizes=tuple(blocksizes),
        hash_type=values.get(5),  # type: ignore[arg-type]
        fanout=values.get(6),  # type: ignore[arg-type]
    )


def child_links(cid: CID, block: bytes | memoryview) -> tuple[PBLink, ...]:
    """The links out of a block: none for raw blocks, the PBNode's links for dag-pb."""
    return decode_pbnode(block).links if cid.codec == DAG_PB else ()
