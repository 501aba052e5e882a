"""Allowlist files as a stranger writes them: CSV quirks accepted, bad entries refused naming their lines, a long
list parsed in linear time and its tree cached by content; the page's per-wallet files prove every address."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from eth_utils import to_checksum_address

from mintprep.base.errors import ConfigError
from mintprep.chain import allowlist_file
from mintprep.chain.allowlist_file import read_allowlist
from mintprep.chain.check import allowlist_failures
from mintprep.chain.merkle import AllowlistTree, verify
from mintprep.chain.phases import SalePhase
from mintprep.collection.chain_settings import PhaseSettings
from mintprep.chain.allowlist_site import allowlist_files, read_site_allowlist

ADDRESSES = [to_checksum_address("0x" + os.urandom(20).hex()) for _ in range(5)]


def listed(tmp_path: Path, text: str | bytes, **kwargs) -> AllowlistTree:
    path = tmp_path / "list.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return read_allowlist(path, "chain.phases.0.allowlist", within=tmp_path, **kwargs)


def test_bom_crlf_quotes_header_and_comments_are_accepted(tmp_path: Path):
    text = "\ufeffaddress,note\r\n" + "".join(f'"{a}","friend, early"\r\n' for a in ADDRESSES[:3])
    text += f"# a comment\r\n\r\n{ADDRESSES[3].lower()} # lower case is fine\r\n{ADDRESSES[4]}"
    tree = listed(tmp_path, text)
    assert tree.addresses == tuple(ADDRESSES)
    assert all(verify(tree.root, a, tree.proof(a)) for a in ADDRESSES)


@pytest.mark.parametrize(("text", "message"), [
    (f"{ADDRESSES[0]}\n{ADDRESSES[1]}\n{ADDRESSES[0].lower()}\n", "lines 1 and 3"),
    ("0x" + "0" * 40 + "\n", "zero address"),
    ("0xnot-an-address\n", "line 1: not an address"),
    ("# only a comment\n", "lists no address"),
    (b"\xff\xfe0x00\n", "not UTF-8"),
])
def test_bad_entries_are_refused_naming_the_line(tmp_path: Path, text, message: str):
    with pytest.raises(ConfigError, match=message) as refused:
        listed(tmp_path, text)
    assert "chain.phases.0.allowlist" in str(refused.value)


def test_a_mixed_case_address_must_carry_its_checksum(tmp_path: Path):
    good = ADDRESSES[0]
    letter = next(i for i, c in enumerate(good) if i > 1 and c.isalpha())
    flipped = good[:letter] + good[letter].swapcase() + good[letter + 1:]
    with pytest.raises(ConfigError, match=f"line 2: {flipped} has an invalid EIP-55 checksum.*{good}"):
        listed(tmp_path, f"{ADDRESSES[1]}\n{flipped}\n")


def test_entry_cap_is_stated(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(allowlist_file, "MAX_ENTRIES", 3)
    with pytest.raises(ConfigError, match="more than 3 addresses"):
        listed(tmp_path, "\n".join(ADDRESSES))


def test_files_that_are_not_a_list_are_refused_before_reading(tmp_path: Path):
    outside = tmp_path / "list.csv"
    outside.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="leads outside"):
        read_allowlist(outside, "chain.phases.0.allowlist", within=tmp_path)
    os.mkfifo(tmp_path / "fifo.csv")
    started = time.monotonic()
    with pytest.raises(ConfigError, match="not a regular file"):
        read_allowlist(tmp_path / "fifo.csv", "chain.phases.0.allowlist", within=tmp_path)
    assert time.monotonic() - started < 5


def test_a_long_list_with_a_duplicate_at_the_end_is_linear(tmp_path: Path):
    """The old reader ran `count()` inside a loop: hours for a million lines. 100,000 lines take well under 10 s."""
    lines = ["0x" + os.urandom(20).hex() for _ in range(100_000)]
    started = time.monotonic()
    with pytest.raises(ConfigError, match="lines 1 and 100001"):
        listed(tmp_path, "\n".join(lines + [lines[0]]))
    assert time.monotonic() - started < 10


def test_the_tree_is_cached_by_content(tmp_path: Path):
    state = tmp_path / ".mintprep"
    state.mkdir()
    first = listed(tmp_path, "\n".join(ADDRESSES), cache_dir=state / "allowlists")
    cached = list((state / "allowlists").glob("*.npz"))
    assert len(cached) == 1
    again = listed(tmp_path, "\n".join(ADDRESSES), cache_dir=state / "allowlists")
    assert again.root == first.root and again.addresses == first.addresses
    changed = listed(tmp_path, "\n".join(ADDRESSES[:4]), cache_dir=state / "allowlists")
    assert changed.root != first.root and len(list((state / "allowlists").glob("*.npz"))) == 2


@pytest.mark.parametrize("count", [1, 2, 3, 7, 256, 300, 2000])
def test_published_files_prove_every_address_and_a_corrupt_node_fails(tmp_path: Path, count: int):
    addresses = ["0x" + os.urandom(20).hex() for _ in range(count)]
    tree = AllowlistTree.of(addresses)
    phase = SalePhase(PhaseSettings(name="friends", allowlist="list.csv"), tree)
    for path, data in allowlist_files([phase]).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    assert allowlist_failures(phase, tree.root, read_site_allowlist(tmp_path, 0)) == []
    node_file = tmp_path / "allowlist/0/n/0.bin"
    data = bytearray(node_file.read_bytes())
    data[40] ^= 1  # the root's first bytes
    node_file.write_bytes(bytes(data))
    assert len(allowlist_failures(phase, tree.root, read_site_allowlist(tmp_path, 0))) == count


def reference_root(addresses: list[str]) -> bytes:
    """StandardMerkleTree's root computed the plain way: one library keccak per leaf and per node."""
    from eth_utils import keccak

    level = sorted(keccak(keccak(bytes(12) + bytes.fromhex(a[2:]))) for a in addresses)
    nodes = list(reversed(level))  # the leaves, at the end of the node array in reverse order
    tree = [b""] * (len(nodes) - 1) + nodes
    for i in range(len(nodes) - 2, -1, -1):
        tree[i] = keccak(b"".join(sorted((tree[2 * i + 1], tree[2 * i + 2]))))
    return tree[0]


def test_ten_thousand_checksummed_lines_give_the_reference_tree_either_way_the_file_is_read(tmp_path: Path):
    """10,000 EIP-55 lines (every checksum verified), read line-wise as arrays; the same list with one quoted
    field running across a line break is read whole by the csv module: both give the plain computation's root."""
    addresses = [to_checksum_address("0x" + os.urandom(20).hex()) for _ in range(10_000)]
    started = time.monotonic()
    tree = listed(tmp_path, "address,note\r\n" + "".join(f"{a},x\r\n" for a in addresses))
    assert time.monotonic() - started < 10
    assert tree.root == reference_root(addresses) and tree.addresses == tuple(addresses)
    across = listed(tmp_path, "address,note\n" + "".join(f"{a},x\n" for a in addresses) + '0x' + '1' * 40 + ',"a\nb"\n')
    assert across.root == reference_root(addresses + ["0x" + "1" * 40])


def test_rows_whose_sort_keys_collide_are_still_told_apart(tmp_path: Path):
    """Duplicates are found by sorting a 64-bit mix of each address; two different addresses crafted to share
    a mix (and a third with the same first 8 bytes) must neither pass as duplicates nor hide a real one."""
    mix = [int(k) for k in allowlist_file._MIX]
    a, b, c = (int.from_bytes(os.urandom(8), "little") for _ in range(3))
    tail = int.from_bytes(os.urandom(4), "little")
    b2 = b ^ 0xFF
    a2 = ((a * mix[0] ^ b * mix[1] ^ b2 * mix[1]) * pow(mix[0], -1, 2**64)) % 2**64  # same mix as (a, b, tail)

    def address(x: int, y: int) -> str:
        return "0x" + (x.to_bytes(8, "little") + y.to_bytes(8, "little") + tail.to_bytes(4, "little")).hex()

    first, twin = address(a, b), address(a2, b2)
    assert first != twin
    tree = listed(tmp_path, f"{first}\n{twin}\n{address(a, c)}\n")
    assert len(tree) == 3
    with pytest.raises(ConfigError, match="lines 2 and 4"):
        listed(tmp_path, f"{first}\n{twin}\n{address(a, c)}\n{twin}\n")


def test_addresses_that_share_their_first_bytes_prove_from_the_published_files(tmp_path: Path):
    """Vanity addresses (a common first 8 bytes) take the byte-by-byte sort for the shards."""
    addresses = ["0x" + "00" * 8 + os.urandom(12).hex() for _ in range(300)]
    tree = AllowlistTree.of(addresses)
    phase = SalePhase(PhaseSettings(name="friends", allowlist="list.csv"), tree)
    for path, data in allowlist_files([phase]).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    published = read_site_allowlist(tmp_path, 0)
    assert len(published["leaves"]) == 300
    assert allowlist_failures(phase, tree.root, published) == []
