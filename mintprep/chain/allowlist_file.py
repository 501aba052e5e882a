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
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from mintprep.base import ConfigError, checksum_digits, read_regular_file
from mintprep.chain.allowlist_scan import scan
from mintprep.chain.merkle import AllowlistTree

MAX_ENTRIES = 2_000_000  # a proof stays under 22 hashes; the page's shards and the cache stay in the hundreds of MB
MAX_FILE_BYTES = 128 * 1024 * 1024  # MAX_ENTRIES lines of a 42-character address and a few columns more
_HEX_VALUE = np.zeros(256, dtype=np.uint8)
_HEX_VALUE[list(b"0123456789abcdef")] = range(16)
_HEX_VALUE[list(b"ABCDEF")] = range(10, 16)
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64)  # odd constants


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
    listing = scan(data, text, source)
    numbers, digits = listing.numbers, listing.digits
    problems = [listing.problem] if listing.problem else []  # the one on the earliest line is reported
    if len(numbers) > MAX_ENTRIES:
        problems.append((int(numbers[MAX_ENTRIES]), f"{source}: more than {MAX_ENTRIES} addresses, mintprep's cap "
                                                    "for one phase (split the list across phases)"))
    raw = _bytes_of(digits)
    repeat = _first_repeat(raw)
    if repeat is not None:
        first, second = (int(numbers[i]) for i in repeat)
        shown = "0x" + digits[repeat[1]].tobytes().decode()
        problems.append((second, f"{source} lines {first} and {second}: {shown} is listed twice"))
    if problems:
        raise ConfigError(min(problems)[1])
    if not len(numbers):
        raise ConfigError(f"{source} lists no address")
    zero = np.flatnonzero(~raw.any(axis=1))
    if len(zero):
        raise ConfigError(f"{source} line {numbers[zero[0]]}: the zero address cannot mint (no key signs for it)")
    _check_checksums(digits, numbers, source)
    return raw


def _bytes_of(digits: np.ndarray) -> np.ndarray:
    """(n, 40) uint8 ASCII hex digits (either case) -> (n, 20) uint8 bytes."""
    values = _HEX_VALUE[digits]
    return (values[:, 0::2] << 4) | values[:, 1::2]


def _first_repeat(raw: np.ndarray) -> tuple[int, int] | None:
    """(first, second) positions of the address whose second listing comes first, or None when all differ.

    Rows are sorted by a 64-bit mix of their bytes (one argsort); only when two different rows share a mix (rare,
    or a crafted list) are they sorted by all 20 bytes."""
    words = np.ascontiguousarray(raw).view(np.dtype([("a", "<u8"), ("b", "<u8"), ("c", "<u4")])).reshape(-1)
    with np.errstate(over="ignore"):
        mix = (words["a"] * _MIX[0]) ^ (words["b"] * _MIX[1]) ^ (words["c"].astype(np.uint64) * _MIX[2])
    order = np.argsort(mix, kind="stable")  # stable: equal rows stay in file order
    same_mix = mix[order][1:] == mix[order][:-1]
    same_row = same_mix & (raw[order][1:] == raw[order][:-1]).all(axis=1) if same_mix.any() else same_mix
    if (same_mix != same_row).any():
        order = np.lexsort((words["c"], words["b"], words["a"]))
        same_row = (raw[order][1:] == raw[order][:-1]).all(axis=1)
    repeats = np.flatnonzero(same_row) + 1  # sorted positions whose row equals the one before
    if not len(repeats):
        return None
    run_start = np.maximum.accumulate(np.where(np.concatenate([[True], ~same_row]), np.arange(len(order)), 0))
    pick = repeats[np.argmin(order[repeats])]  # the repeat listed earliest in the file
    return int(order[run_start[pick]]), int(order[pick])


def _check_checksums(digits: np.ndarray, numbers: np.ndarray, source: str) -> None:
    """A mixed-case address (upper and lower case letters both) must be spelled exactly as EIP-55 has it."""
    mixed = np.flatnonzero((digits >= ord("a")).any(axis=1) & ((digits >= ord("A")) & (digits <= ord("F"))).any(axis=1))
    if not len(mixed):
        return
    expected = checksum_digits(digits[mixed] | 0x20)  # letters to lower case; the digits 0-9 have that bit
    wrong = np.flatnonzero((expected != digits[mixed]).any(axis=1))
    if len(wrong):
        row = mixed[wrong[0]]
        given, right = digits[row].tobytes().decode(), expected[wrong[0]].tobytes().decode()
        raise ConfigError(f"{source} line {numbers[row]}: 0x{given} has an invalid EIP-55 checksum (a mistyped "
                          f"letter?); the checksummed form of these digits is 0x{right}")


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
