"""The embedded IPFS store behind the `local` backend: block files plus a pin set, crash-safe.

Layout under `<state_dir>/ipfs/`:
  blocks/<xx>/<multihash-base32>   one file per block, sharded by two characters as kubo's flatfs does
  pins.db                           the pin set (cid → name), SQLite: a batch of pins is one transaction
                                   (mintprep.ipfs.pinset; an older store's pins/<cid> files are migrated)
Blocks are filed by multihash, so a CIDv0 and a CIDv1 of the same bytes share one file. A block is
written to a temp file, synced and renamed (a batch at a time), so a crash never leaves a half block under a
real name. A store given `copies` (the importer gives it the object store) files a block whose bytes the object
store already holds (a one-block raw-leaf file: the block is the file, named by the same sha256) as a hard link
to that copy: same layout, same bytes for every reader, one file on disk instead of two.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from mintprep.base import read_whole, write_durably
from mintprep.ipfs.cid import CID, as_cid
from mintprep.ipfs.dag import walk_dag
from mintprep.ipfs.errors import BlockNotFound
from mintprep.ipfs.pinset import PinSet
from mintprep.ipfs.unixfs import Block


class NamedCopies(Protocol):
    """Files named by the sha256 of their bytes (the object store, `mintprep.state.objects.ObjectStore`)."""

    def file_name(self, sha256: str) -> str: ...


class BlockStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.blocks_dir = self.root / "blocks"
        self._blocks = str(self.blocks_dir)
        self.pins = PinSet(self.root)
        # An object store whose files new blocks may share (hard links) instead of copies: see `put_many`.
        self.copies: NamedCopies | None = None

    def path_for(self, cid: CID) -> Path:
        return Path(self._file_name(cid))

    def _file_name(self, cid: CID) -> str:
        """`path_for` as a string: pathlib's joins cost more than reading a small block."""
        key = cid.multihash_key
        return f"{self._blocks}/{key[-3:-1]}/{key}"

    # ---------------------------------------------------------------- blocks

    def has(self, cid: CID | str) -> bool:
        cid = as_cid(cid)
        return cid.inline is not None or self.path_for(cid).is_file()

    def get(self, cid: CID | str) -> bytes:
        """The stored bytes, unchecked (verification's job); BlockNotFound when absent."""
        cid = as_cid(cid)
        if cid.inline is not None:  # an identity CID is its own block: nothing is stored for it
            return cid.inline
        try:
            return read_whole(self._file_name(cid))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):  # a folder or file in a block's place
            raise BlockNotFound(str(cid)) from None

    def put_many(self, blocks: Iterable[Block]) -> int:
        """Store blocks not already present intact, each checked against its CID; return how many were written.

        Crash-safe at two syncs per batch (`write_durably`): never a half block under a real name; an fsync per
        file made 6,000 small blocks take 40 s. A block whose bytes `copies` holds (a single-block raw-leaf
        file: its block is the file) is stored as a hard link to that copy, not written again."""
        wanted: dict[str, bytes] = {}
        links: dict[str, str] = {}
        for block in blocks:
            if not block.cid.matches(block.data):
                raise ValueError(f"block {block.cid} does not match its data")
            if block.cid.inline is not None:
                continue
            target = self._file_name(block.cid)
            if target in wanted or target in links or _holds(target, block.data):
                continue  # a file whose bytes rotted is not "present": it is replaced
            copy = self._copy_of(block)
            if copy is None:
                wanted[target] = block.data
            else:
                links[target] = copy
        return write_durably(wanted.items(), links.items())

    def _copy_of(self, block: Block) -> str | None:
        """The object store's file of these very bytes (named by their sha256, as the block's CID is), if any."""
        if self.copies is None:
            return None
        name = self.copies.file_name(block.cid.digest.hex())
        return name if _holds(name, block.data) else None

    def iter_dag(self, root: CID | str, *, skip_missing: bool = False) -> Iterator[Block]:
        """The DAG under `root` in DFS pre-order, each block once; BlockNotFound if one is absent
        (unless `skip_missing`, for walks that only want what is there)."""
        for step in walk_dag(root, self.get):
            if isinstance(step, Block):
                yield step
            elif not (skip_missing and isinstance(step, BlockNotFound)):
                raise step

    # ---------------------------------------------------------------- pins

    @contextlib.contextmanager
    def _gc_lock(self) -> Iterator[None]:
        """Pins and garbage collection exclude each other, so GC never deletes a DAG being pinned."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "pins.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def read_pins(self) -> dict[str, str]:
        """cid → name of every pin."""
        return self.pins.read()

    def is_pinned(self, cid: CID | str) -> bool:
        return self.pins.has(str(as_cid(cid)))

    def add_pins(self, pins: Iterable[tuple[CID | str, str]]) -> None:
        """Pin many DAGs in one transaction (each already stored whole)."""
        with self._gc_lock():
            self.pins.add((str(as_cid(cid)), name) for cid, name in pins)

    def remove_pin(self, cid: CID | str) -> bool:
        with self._gc_lock():
            return self.pins.remove(str(as_cid(cid)))

    def collect_garbage(self) -> int:
        """Delete blocks no pin reaches (e.g. a replaced broken image); return how many were deleted."""
        with self._gc_lock():
            keep: set[str] = set()
            for pinned in self.read_pins():
                keep.update(block.cid.multihash_key for block in self.iter_dag(pinned, skip_missing=True))
            deleted = 0
            for path in self.blocks_dir.glob("*/*"):
                if path.name not in keep:  # leftover temp files of a crashed write go too
                    path.unlink()
                    deleted += 1
            return deleted


def _holds(name: str, data: bytes) -> bool:
    """Whether the file `name` holds exactly `data` (absent: no)."""
    try:
        with open(name, "rb") as stored:
            return stored.read() == data
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return False
