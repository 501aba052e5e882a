"""A UnixFS importer byte-identical to kubo's `ipfs add` (boxo balanced layout, basic and HAMT directories).

The importer builds a tree of `DagNode`s. Small nodes keep their block bytes; leaves of a file on disk
keep only where their chunk lies, so importing a 1 GiB file holds a few kilobytes per 174 chunks and
`DagImport.blocks` re-reads (and re-checks) the chunks when something needs the bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO, Literal, Union

import mmh3

from mintprep.base import UserError
from mintprep.ipfs.cid import CID, DAG_PB, RAW, encode_varint
from mintprep.ipfs.dagpb import DIRECTORY, FILE, HAMT_SHARD, MURMUR3_X64_64, SYMLINK, PBLink, PBNode, UnixFSData

DEFAULT_CHUNK_SIZE = 256 * 1024
MAX_CHUNK_SIZE = 2 * 1024 * 1024 - 256  # kubo >= 0.40: a chunk plus its dag-pb framing fits a 2 MiB block
HAMT_THRESHOLD = 256 * 1024
READ_BATCH_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Profile:
    """Every setting that changes a CID. Recorded with a collection so its CIDs can be recomputed."""

    name: str
    cid_version: int
    raw_leaves: bool
    chunk_size: int
    max_links: int
    hamt_estimation: Literal["links", "block"]
    hamt_threshold: int = HAMT_THRESHOLD
    hamt_fanout: int = 256

    def with_options(
        self,
        *,
        cid_version: int | None = None,
        raw_leaves: bool | None = None,
        chunker: str | None = None,
    ) -> Profile:
        """Apply `ipfs add` flags on top of this profile, as kubo applies them on top of its config."""
        changes: dict[str, object] = {}
        if cid_version is not None:
            if cid_version not in (0, 1):
                raise UserError(f"--cid-version must be 0 or 1, not {cid_version}")
            changes["cid_version"] = cid_version
        if raw_leaves is not None:
            changes["raw_leaves"] = raw_leaves
        if chunker is not None:
            changes["chunk_size"] = parse_chunker(chunker)
        changed = replace(self, **changes)  # type: ignore[arg-type]
        return changed if changed == self else replace(changed, name=f"{self.name}+flags")

    def as_record(self) -> dict[str, object]:
        return {
            "name": self.name,
            "cid_version": self.cid_version,
            "raw_leaves": self.raw_leaves,
            "chunker": f"size-{self.chunk_size}",
            "max_links": self.max_links,
            "hamt": {"estimation": self.hamt_estimation, "threshold": self.hamt_threshold, "fanout": self.hamt_fanout},
        }


PROFILES: dict[str, Profile] = {
    # `ipfs add --cid-version=1` on a default kubo config: v1 implies raw leaves, the rest stays v0-2015.
    "kubo-cidv1": Profile("kubo-cidv1", 1, True, DEFAULT_CHUNK_SIZE, 174, "links"),
    "unixfs-v0-2015": Profile("unixfs-v0-2015", 0, False, DEFAULT_CHUNK_SIZE, 174, "links"),
    "unixfs-v1-2025": Profile("unixfs-v1-2025", 1, True, 1024 * 1024, 1024, "block"),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UserError(f"unknown IPFS profile {name!r}; choose one of {', '.join(PROFILES)}") from None


def add_options(
    profile: str | None = None,
    *,
    cid_version: int | None = None,
    raw_leaves: bool | None = None,
    chunker: str | None = None,
) -> Profile:
    """The profile `ipfs add` flags select. Without a profile these are kubo's defaults, where raw
    leaves follow the CID version unless set (`--cid-version=1` alone means raw leaves)."""
    if profile is not None:
        return get_profile(profile).with_options(cid_version=cid_version, raw_leaves=raw_leaves, chunker=chunker)
    if raw_leaves is None:
        raw_leaves = bool(cid_version)
    return PROFILES["unixfs-v0-2015"].with_options(cid_version=cid_version, raw_leaves=raw_leaves, chunker=chunker)


def parse_chunker(spec: str) -> int:
    if spec == "default":
        return DEFAULT_CHUNK_SIZE
    prefix, _, size = spec.partition("-")
    if prefix != "size" or not size.isdigit():
        raise UserError(f"chunker {spec!r} is not supported: use size-N (rabin/buzhash are not stable across kubo releases)")
    value = int(size)
    if not 0 < value <= MAX_CHUNK_SIZE:
        raise UserError(f"chunker {spec!r}: N must be between 1 and {MAX_CHUNK_SIZE}")
    return value


@dataclass(frozen=True)
class Block:
    cid: CID
    data: bytes


@dataclass(frozen=True)
class FileSpan:
    """Where a leaf's chunk lies in a file; the block is rebuilt from it and checked against its CID."""

    path: Path
    offset: int
    length: int


@dataclass(frozen=True, eq=False)
class DagNode:
    cid: CID
    tsize: int  # the block's length plus the Tsize of every child: what a parent's link records
    children: tuple[DagNode, ...] = ()
    data: bytes | None = None
    span: FileSpan | None = None

    def block(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.span is not None
        with open(self.span.path, "rb") as handle:
            handle.seek(self.span.offset)
            chunk = handle.read(self.span.length)
        block = chunk if self.cid.codec == RAW else _dagpb_leaf_block(chunk)
        if len(chunk) != self.span.length or not self.cid.matches(block):
            raise UserError(f"{self.span.path} changed after it was imported (block {self.cid} no longer matches)")
        return block


class DagImport:
    """An imported DAG: its root CID, cumulative size, and blocks in DFS pre-order, each once."""

    def __init__(self, node: DagNode, profile: Profile) -> None:
        self.node = node
        self.profile = profile

    @property
    def root(self) -> CID:
        return self.node.cid

    @property
    def size(self) -> int:
        return self.node.tsize

    @property
    def blocks(self) -> Iterator[Block]:
        """A fresh iterator on each access; file leaves are re-read from disk as it advances."""
        seen: set[CID] = set()
        stack = [self.node]
        while stack:
            node = stack.pop()
            if node.cid in seen:
                continue
            seen.add(node.cid)
            yield Block(node.cid, node.block())
            stack.extend(reversed(node.children))

    def __repr__(self) -> str:
        return f"DagImport(root={self.root}, size={self.size}, profile={self.profile.name})"


# ---------------------------------------------------------------- files


def _dagpb_leaf_parts(length: int) -> tuple[bytes, bytes]:
    """The bytes around a non-empty chunk in a dag-pb leaf, so a leaf is hashed without copying the chunk."""
    header = b"\x08\x02\x12" + encode_varint(length)
    trailer = b"\x18" + encode_varint(length)
    return b"\x0a" + encode_varint(len(header) + length + len(trailer)) + header, trailer


def _dagpb_leaf_block(chunk: bytes) -> bytes:
    if not chunk:  # boxo leaves Data unset for an empty file: only Type and filesize 0
        return PBNode((), UnixFSData(FILE, filesize=0).encode()).encode()
    prefix, suffix = _dagpb_leaf_parts(len(chunk))
    return prefix + chunk + suffix


def _leaf(chunk: bytes, span: FileSpan | None, profile: Profile) -> tuple[DagNode, int]:
    """A leaf node and the file bytes it holds. With a span the chunk is not kept in memory."""
    if profile.raw_leaves:
        cid = CID(1, RAW, hashlib.sha256(chunk).digest())
        return DagNode(cid, len(chunk), data=None if span else chunk, span=span), len(chunk)
    if not chunk or span is None:
        block = _dagpb_leaf_block(chunk)
        return DagNode(CID.for_block(block, version=profile.cid_version, codec=DAG_PB), len(block), data=block), len(chunk)
    prefix, suffix = _dagpb_leaf_parts(len(chunk))
    digest = hashlib.sha256(prefix)
    digest.update(chunk)
    digest.update(suffix)
    cid = CID(profile.cid_version, DAG_PB, digest.digest())
    return DagNode(cid, len(prefix) + len(chunk) + len(suffix), span=span), len(chunk)


def _parent(children: list[tuple[DagNode, int]], profile: Profile) -> tuple[DagNode, int]:
    file_size = sum(size for _, size in children)
    data = UnixFSData(FILE, filesize=file_size, blocksizes=tuple(size for _, size in children))
    links = tuple(PBLink(node.cid, "", node.tsize) for node, _ in children)
    return _dagpb_node(links, data, profile, tuple(node for node, _ in children)), file_size


def _dagpb_node(links: tuple[PBLink, ...], data: UnixFSData, profile: Profile, children: tuple[DagNode, ...]) -> DagNode:
    block = PBNode(links, data.encode()).encode()
    cid = CID.for_block(block, version=profile.cid_version, codec=DAG_PB)
    return DagNode(cid, len(block) + sum(link.tsize for link in links), children, data=block)


class _Chunks:
    """Chunks with one of look-ahead, because the balanced builder asks "is there more?" before reading."""

    def __init__(self, chunks: Iterator[tuple[bytes, FileSpan | None]]) -> None:
        self._chunks = chunks
        self._next = next(chunks, None)

    def done(self) -> bool:
        return self._next is None

    def take(self) -> tuple[bytes, FileSpan | None]:
        current, self._next = self._next, next(self._chunks, None)
        assert current is not None
        return current


def _balanced(chunks: _Chunks, profile: Profile) -> DagNode:
    """boxo importer/balanced: grow the root upward, filling each new level to max_links children."""
    if chunks.done():
        return _leaf(b"", None, profile)[0]
    root = _leaf(*chunks.take(), profile)
    depth = 1
    while not chunks.done():
        root = _fill([root], depth, chunks, profile)
        depth += 1
    return root[0]


def _fill(children: list[tuple[DagNode, int]], depth: int, chunks: _Chunks, profile: Profile) -> tuple[DagNode, int]:
    while len(children) < profile.max_links and not chunks.done():
        if depth == 1:
            children.append(_leaf(*chunks.take(), profile))
        else:
            children.append(_fill([], depth - 1, chunks, profile))
    return _parent(children, profile)


def import_bytes(data: bytes, profile: Profile) -> DagImport:
    size = profile.chunk_size
    chunks = ((data[start : start + size], None) for start in range(0, len(data), size))
    return DagImport(_balanced(_Chunks(chunks), profile), profile)


def import_file(path: str | Path, profile: Profile) -> DagImport:
    """Import a file in constant memory: leaves remember their place in the file, not their bytes."""
    path = Path(path)

    def chunks(handle: BinaryIO) -> Iterator[tuple[bytes, FileSpan | None]]:
        # Read several chunks per syscall and hash views into the buffer: no per-chunk copy.
        batch = max(1, READ_BATCH_BYTES // profile.chunk_size) * profile.chunk_size
        offset = 0
        while buffer := _read_full(handle, batch):
            view = memoryview(buffer)
            for start in range(0, len(buffer), profile.chunk_size):
                chunk = view[start : start + profile.chunk_size]
                yield chunk, FileSpan(path, offset, len(chunk))  # type: ignore[misc]
                offset += len(chunk)

    try:
        with open(path, "rb") as handle:
            return DagImport(_balanced(_Chunks(chunks(handle)), profile), profile)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None


def _read_full(stream: BinaryIO, size: int) -> bytes:
    """Read exactly `size` bytes unless the stream ends: kubo's size splitter never emits short middles."""
    chunk = stream.read(size)
    while chunk and len(chunk) < size:
        more = stream.read(size - len(chunk))
        if not more:
            break
        chunk += more
    return chunk


def import_symlink(target: str, profile: Profile) -> DagImport:
    return DagImport(_dagpb_node((), UnixFSData(SYMLINK, data=target.encode()), profile, ()), profile)


# ---------------------------------------------------------------- directories

DirectoryEntries = Mapping[str, Union[DagImport, "DirectoryEntries"]]


def import_directory(entries: DirectoryEntries, profile: Profile) -> DagImport:
    """A UnixFS directory over already-imported entries (nested mappings are subdirectories).

    Links are sorted by name bytes; past the profile's size estimate the directory is a HAMT shard,
    exactly when kubo >= 0.40 would shard it (strictly greater than the threshold).
    """
    named: list[tuple[str, DagNode]] = []
    for name, entry in entries.items():
        _check_entry_name(name)
        child = entry if isinstance(entry, DagImport) else import_directory(entry, profile)
        named.append((name, child.node))
    named.sort(key=lambda item: item[0].encode())
    links = tuple(PBLink(node.cid, name, node.tsize) for name, node in named)
    children = tuple(node for _, node in named)
    if _directory_estimate(links, profile) > profile.hamt_threshold:
        return DagImport(_hamt(named, profile), profile)
    return DagImport(_dagpb_node(links, UnixFSData(DIRECTORY), profile, children), profile)


def _check_entry_name(name: str) -> None:
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise UserError(f"invalid directory entry name {name!r}: names are non-empty, without '/', not '.' or '..'")


def _directory_estimate(links: Iterable[PBLink], profile: Profile) -> int:
    if profile.hamt_estimation == "links":
        # boxo's legacy estimate: name + CID bytes per link, framing and Tsize ignored.
        return sum(len(link.name.encode()) + len(bytes(link.cid)) for link in links)
    return sum(len(link.encode()) for link in links) + len(PBNode((), UnixFSData(DIRECTORY).encode()).encode())


def hamt_hash(name: str) -> int:
    """murmur3-x64-128 (seed 0), first 64-bit half read big-endian: boxo hamt's hash of an entry name."""
    return mmh3.hash64(name.encode(), seed=0, x64arch=True, signed=False)[0]


def hamt_label(hashed: int, depth: int, fanout: int) -> str:
    """The link-name prefix of the bucket `hashed` falls in at `depth`: hash bits taken from the top."""
    bits = fanout.bit_length() - 1
    shift = 64 - bits * (depth + 1)
    if shift < 0:
        raise UserError("HAMT: entry names collide in all 64 hash bits")
    return f"{(hashed >> shift) & (fanout - 1):0{len(f'{fanout - 1:X}')}X}"


def _hamt(named: list[tuple[str, DagNode]], profile: Profile) -> DagNode:
    fanout = profile.hamt_fanout
    if fanout < 2 or fanout & (fanout - 1) or fanout > 1024:
        raise UserError(f"HAMT fanout {fanout} must be a power of two up to 1024")
    return _shard([(name, hamt_hash(name), node) for name, node in named], 0, profile)


def _shard(entries: list[tuple[str, int, DagNode]], depth: int, profile: Profile) -> DagNode:
    fanout = profile.hamt_fanout
    buckets: dict[str, list[tuple[str, int, DagNode]]] = {}
    for entry in entries:
        buckets.setdefault(hamt_label(entry[1], depth, fanout), []).append(entry)
    links: list[PBLink] = []
    children: list[DagNode] = []
    bitfield = 0
    for label in sorted(buckets, key=lambda hex_label: int(hex_label, 16)):
        bitfield |= 1 << int(label, 16)
        bucket = buckets[label]
        if len(bucket) == 1:
            name, _, node = bucket[0]
            links.append(PBLink(node.cid, label + name, node.tsize))
        else:
            node = _shard(bucket, depth + 1, profile)
            links.append(PBLink(node.cid, label, node.tsize))
        children.append(node)
    data = UnixFSData(
        HAMT_SHARD,
        data=bitfield.to_bytes((bitfield.bit_length() + 7) // 8, "big"),
        hash_type=MURMUR3_X64_64,
        fanout=fanout,
    )
    return _dagpb_node(tuple(links), data, profile, tuple(children))
