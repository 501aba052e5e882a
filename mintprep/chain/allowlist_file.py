"""Allowlist files: a stranger's CSV or text turned into a Merkle tree, in linear time, cached by content hash.

One address per line, or a CSV whose first column is the address (a header row `address`, a UTF-8 BOM, CRLF
line ends and quoted fields are all fine); blank lines and `#` comments are skipped. Refused, naming the line:
anything that is not an address, the zero address (no wallet can sign for it), a mixed-case address whose
EIP-55 checksum is wrong (a mistyped letter), and an address listed twice (naming both lines). The file is read
through base.untrusted_files (regular file inside the collection folder, size capped before reading), and the
built tree is cached as `<sha256 of the file>.npz` in the state folder (StateDir.allowlists), so a rerun does not
rebuild it.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from mintprep.base.errors import ConfigError
from mintprep.base.untrusted_files import read_regular_file
from mintprep.chain.keccak_batch import keccak256_many
from mintprep.chain.merkle import AllowlistTree

MAX_ENTRIES = 2_000_000  # a proof stays under 22 hashes; the page's shards and the cache stay in the hundreds of MB
MAX_FILE_BYTES = 128 * 1024 * 1024  # MAX_ENTRIES lines of a 42-character address and a few columns more
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")


def read_allowlist(path: Path, where: str, *, within: Path | None = None, cache_dir: Path | None = None) -> AllowlistTree:
    """The tree of the addresses `path` lists; ConfigError naming `where` (the YAML path), the file and the line."""
    try:
        data = read_regular_file(path, MAX_FILE_BYTES, within=within, what="allowlist file", error=ConfigError)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}", field=where, path=str(path)) from None
    digest = hashlib.sha256(data).hexdigest()
    cached = _load_cached(cache_dir, digest)
    if cached is not None:
        return cached
    tree = AllowlistTree.build(parse_allowlist(data, f"{where}: {path}"))
    _store_cached(cache_dir, digest, tree)
    return tree


def parse_allowlist(data: bytes, source: str) -> np.ndarray:
    """(n, 20) uint8 addresses in the file's order; ConfigError starting with `source` for the first bad entry."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    first_line: dict[bytes, int] = {}
    mixed: list[tuple[int, str]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            entry = row[0].split("#", 1)[0].strip() if row else ""
            number = reader.line_num
            if not entry or (not first_line and entry.lower() == "address"):
                continue
            if not _ADDRESS.fullmatch(entry):
                raise ConfigError(f"{source} line {number}: not an address: {entry[:60]!r}")
            raw = bytes.fromhex(entry[2:])
            if raw in first_line:
                raise ConfigError(f"{source} lines {first_line[raw]} and {number}: {entry} is listed twice")
            if len(first_line) >= MAX_ENTRIES:
                raise ConfigError(f"{source}: more than {MAX_ENTRIES} addresses, mintprep's cap for one phase "
                                  "(split the list across phases)")
            first_line[raw] = number
            digits = entry[2:]
            if digits != digits.lower() and digits != digits.upper():
                mixed.append((number, entry))
    except csv.Error as exc:
        raise ConfigError(f"{source} line {reader.line_num}: not CSV ({exc})") from None
    if not first_line:
        raise ConfigError(f"{source} lists no address")
    if bytes(20) in first_line:
        raise ConfigError(f"{source} line {first_line[bytes(20)]}: the zero address cannot mint (no key signs for it)")
    _check_checksums(mixed, source)
    return np.frombuffer(b"".join(first_line), dtype=np.uint8).reshape(-1, 20)


def _check_checksums(mixed: list[tuple[int, str]], source: str) -> None:
    """EIP-55: letter i is upper case exactly when nibble i of keccak256(lower-case hex) is 8 or more."""
    if not mixed:
        return
    lower = np.frombuffer("".join(e[2:].lower() for _, e in mixed).encode(), dtype=np.uint8).reshape(-1, 40)
    digest = keccak256_many(lower)
    nibbles = np.stack([digest >> 4, digest & 0x0F], axis=2).reshape(-1, 64)[:, :40]
    is_letter = lower >= ord("a")
    expected = np.where(is_letter & (nibbles >= 8), lower - 32, lower)
    given = np.frombuffer("".join(e[2:] for _, e in mixed).encode(), dtype=np.uint8).reshape(-1, 40)
    wrong = np.flatnonzero((expected != given).any(axis=1))
    if len(wrong):
        number, entry = mixed[wrong[0]]
        right = "0x" + bytes(expected[wrong[0]]).decode()
        raise ConfigError(f"{source} line {number}: {entry} has an invalid EIP-55 checksum (a mistyped letter?); "
                          f"the checksummed form of these digits is {right}")


def _load_cached(cache_dir: Path | None, digest: str) -> AllowlistTree | None:
    if cache_dir is None:
        return None
    try:
        with np.load(cache_dir / f"{digest}.npz") as saved:
            return AllowlistTree(saved["raw"], saved["nodes"], saved["leaf_index"])
    except (OSError, ValueError, KeyError):
        return None  # absent or unreadable: rebuilt, and rewritten


def _store_cached(cache_dir: Path | None, digest: str, tree: AllowlistTree) -> None:
    """Best effort, and only where the state folder already exists: a read-only command creates no state."""
    if cache_dir is None or not cache_dir.parent.is_dir():
        return
    folder, written = cache_dir, None
    try:
        folder.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".npz", delete=False) as handle:
            written = handle.name
            np.savez(handle, raw=tree.raw, nodes=tree.nodes, leaf_index=tree.leaf_index)
        os.replace(written, folder / f"{digest}.npz")
    except OSError:  # a read-only folder or a full disk: the cache is an optimisation, the tree is already built
        if written:
            with contextlib.suppress(OSError):
                os.unlink(written)
