"""The published CID vectors, reproduced, plus kubo's own add_test vectors.

Sources: kubo test/cli/add_test.go, cid_profiles_test.go, sharness t0040, the UnixFS spec, IPIP-0499.
Vectors marked "derived" in the research were computed by its prototype, not by kubo; they are kept
in a separate test so a reader knows which claims rest on kubo itself.
"""

from __future__ import annotations

import pytest

from mintprep.base.errors import UserError
from mintprep.ipfs.cid import CID
from mintprep.ipfs.dagpb import DIRECTORY, HAMT_SHARD, decode_pbnode, decode_unixfs
from mintprep.ipfs.unixfs import add_options, get_profile, import_bytes, import_directory
from tests.ipfs.deterministic import deterministic_bytes, deterministic_names

V0 = get_profile("unixfs-v0-2015")
V1 = get_profile("kubo-cidv1")
V1_2025 = get_profile("unixfs-v1-2025")
V1_DAGPB = V1.with_options(raw_leaves=False)
V0_RAW = V0.with_options(raw_leaves=True)
KIB = 1024


@pytest.mark.parametrize(
    ("data", "profile", "expected"),
    [
        (b"", V0, "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"),
        (b"", V1, "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"),
        (b"", V1_DAGPB, "bafybeif7ztnhq65lumvvtr4ekcwd2ifwgm3awq4zfr3srh462rwyinlb4y"),
        (b"hello world", V0, "Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD"),
        (b"hello world", V1, "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"),
        (b"hello world", V1_DAGPB, "bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa"),
        (b"hello world\n", V0, "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"),
        (b"hello world\n", V1, "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"),
        (b"Hello Mars!\n", V1, "bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4"),
    ],
)
def test_small_files(data: bytes, profile, expected: str) -> None:
    assert str(import_bytes(data, profile).root) == expected


def test_hello_world_block_bytes() -> None:
    blocks = list(import_bytes(b"hello world\n", V0).blocks)
    assert [block.data.hex() for block in blocks] == ["0a120802120c68656c6c6f20776f726c640a180c"]
    assert import_bytes(b"", V0).node.data == bytes.fromhex("0a0408021800")


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (V0, "QmWSgS32xQEcXMeqd3YPJLrNBLSdsfYCep2U7CFkyrjXwY"),
        (V0_RAW, "QmfWfQfKCY5Ukv9peBbxM5vqWM9BzmqUSXvdCgjT2wsiBT"),
        (V1, "bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi"),
        (V1_DAGPB, "bafybeif5tuep5ap2d7zyhbktucey75aoacxufgt6i3v4gebmixyipnyp7y"),
    ],
)
def test_planets_directory(profile, expected: str) -> None:
    entries = {"venus.txt": import_bytes(b"Hello Venus!\n", profile), "mars.txt": import_bytes(b"Hello Mars!\n", profile)}
    assert str(import_directory(entries, profile).root) == expected


def test_empty_directories_and_wrap() -> None:
    assert str(import_directory({}, V0).root) == "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn"
    assert str(import_directory({}, V1).root) == "bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354"
    wrapped = import_directory({"example.jpg": import_bytes(b"", V0)}, V0)
    assert str(wrapped.root) == "QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx"
    assert wrapped.node.data.hex().startswith("12330a221220bfccda") and wrapped.node.data.endswith(bytes.fromhex("0a020801"))


def test_chunk_boundary_v0() -> None:
    data = deterministic_bytes("chunk-v0-seed", 256 * KIB + 1)
    assert str(import_bytes(data[:-1], V0).root) == "QmWmRj3dFDZdb6ABvbmKhEL6TmPbAfBZ1t5BxsEyJrcZhE"
    two = import_bytes(data, V0)
    assert str(two.root) == "QmYyLxtzZyW22zpoVAtKANLRHpDjZtNeDjQdJrcQNWoRkJ"
    root_block = two.node.data
    assert root_block.endswith(bytes.fromhex("0a0c080218818010208080102001"))  # filesize + unpacked blocksizes
    assert bytes.fromhex("1200188e8010") in root_block  # empty link name, Tsize 262158


def test_multi_level_file_past_174_links() -> None:
    data = deterministic_bytes("v0-seed", 174 * 256 * KIB + 1)
    full = import_bytes(data[:-1], V0)
    assert str(full.root) == "QmUbBALi174SnogsUzLpYbD4xPiBSFANF4iztWCsHbMKh2"
    assert len(full.node.children) == 174
    deeper = import_bytes(data, V0)
    assert str(deeper.root) == "QmV81WL765sC8DXsRhE5fJv2rwhS4icHRaf3J9Zk5FdRnW"
    assert [len(child.children) for child in deeper.node.children] == [174, 1]  # all leaves at one depth


def test_unixfs_v1_2025_chunk_boundary() -> None:
    data = deterministic_bytes("chunk-v1-seed", 1024 * KIB + 1)
    assert str(import_bytes(data[:-1], V1_2025).root) == "bafkreiacndfy443ter6qr2tmbbdhadvxxheowwf75s6zehscklu6ezxmta"
    assert str(import_bytes(data, V1_2025).root) == "bafybeigmix7t42i6jacydtquhet7srwvgpizfg7gjbq7627d35mjomtu64"


@pytest.mark.parametrize(
    ("profile", "seed", "count", "length", "last", "expected", "sharded"),
    [
        (V0, "hamt-unixfs-v0-2015", 4096, 30, 30, "QmX5GtRk3TSSEHtdrykgqm4eqMEn3n2XhfkFAis5fjyZmN", False),
        (V0, "hamt-unixfs-v0-2015", 4033, 31, 31, "QmeMiJzmhpJAUgynAcxTQYek5PPKgdv3qEvFsdV3XpVnvP", True),
        (V1_2025, "hamt-unixfs-v1-2025", 4766, 11, 21, "bafybeic3h7rwruealwxkacabdy45jivq2crwz6bufb5ljwupn36gicplx4", False),
        (V1_2025, "hamt-unixfs-v1-2025", 4766, 11, 22, "bafybeiegvuterwurhdtkikfhbxcldohmxp566vpjdofhzmnhv6o4freidu", True),
    ],
)
def test_hamt_threshold_vectors(profile, seed, count, length, last, expected, sharded) -> None:
    """kubo's boundary fixtures: exactly at 262144 bytes stays basic (kubo >= 0.40 compares with >)."""
    leaf = import_bytes(b"x", profile)
    names = deterministic_names(seed, count, length, last)
    directory = import_directory({name: leaf for name in names}, profile)
    assert str(directory.root) == expected
    data = _unixfs(directory)
    assert data.type == (HAMT_SHARD if sharded else DIRECTORY)
    if sharded:
        assert (data.fanout, data.hash_type) == (256, 0x22)


def test_nft_directory_shards_at_5851_entries_in_kubo_cidv1() -> None:
    """boxo ipld/unixfs/io/directory.go's size estimate: names 0.json…N-1.json cross the links estimate at 5851 entries with 36-byte CIDs."""
    leaf = import_bytes(b"{}", V1)

    def listing(count: int):
        return import_directory({f"{index}.json": leaf for index in range(count)}, V1)

    assert _unixfs(listing(5850)).type == DIRECTORY
    sharded = listing(5851)
    assert _unixfs(sharded).type == HAMT_SHARD
    links = decode_pbnode(sharded.node.data).links
    labels = [int(link.name[:2], 16) for link in links]
    assert labels == sorted(labels) and len(set(labels)) == len(labels)


def _unixfs(dag):
    return decode_unixfs(decode_pbnode(dag.node.data).data)


def test_derived_vectors() -> None:
    """Computed by the research prototype only (not cross-checked against kubo): regressions guards."""
    assert str(import_bytes(b"hello world\n", V1_DAGPB).root) == "bafybeicg2rebjoofv4kbyovkw7af3rpiitvnl6i7ckcywaq6xjcxnc2mby"
    hello = {"hello.txt": b"hello world\n"}
    assert str(import_directory({k: import_bytes(v, V0) for k, v in hello.items()}, V0).root) == "QmfLiVjH2vujCVP2e75zyzBYmpcjktmDeU1YBz6Ct8BBsc"
    assert str(import_directory({k: import_bytes(v, V1) for k, v in hello.items()}, V1).root) == "bafybeidhkumeonuwkebh2i4fc7o7lguehauradvlk57gzake6ggjsy372a"
    data = deterministic_bytes("chunk-v0-seed", 256 * KIB + 1)
    assert str(import_bytes(data, V1).root) == "bafybeibyui7o3sbw3yifnewshhrbnuntcehluzvbkwgi5vmtsdobnc2c6y"


def test_blocks_are_dfs_preorder_each_once_and_sizes_add_up() -> None:
    data = deterministic_bytes("dup", 1000) * 4  # repeated chunks -> duplicate leaves
    dag = import_bytes(data, V1.with_options(chunker="size-1000"))
    blocks = list(dag.blocks)
    assert blocks[0].cid == dag.root
    assert len({block.cid for block in blocks}) == len(blocks) == 2  # root + one leaf, emitted once
    assert dag.size == len(blocks[0].data) + 4 * 1000
    assert all(block.cid.matches(block.data) for block in blocks)


def test_flag_semantics_follow_kubo() -> None:
    assert add_options().cid_version == 0 and not add_options().raw_leaves
    assert add_options(cid_version=1).raw_leaves  # --cid-version=1 implies raw leaves
    assert not add_options(cid_version=1, raw_leaves=False).raw_leaves
    assert add_options(chunker="size-1000").chunk_size == 1000
    assert add_options("unixfs-v1-2025").chunk_size == 1024 * KIB
    for bad in ("rabin-1-2-3", "size-0", "size-x", f"size-{4 * 1024 * KIB}"):
        with pytest.raises(UserError, match="chunker"):
            add_options(chunker=bad)
    with pytest.raises(UserError, match="unknown IPFS profile 'nope'"):
        get_profile("nope")
    with pytest.raises(UserError, match="invalid directory entry name"):
        import_directory({"a/b": import_bytes(b"", V1)}, V1)


def test_v0_with_raw_leaves_gives_raw_single_chunk_root() -> None:
    root = import_bytes(b"Hello Mars!\n", V0_RAW).root
    assert root.version == 1 and str(root) == "bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4"
    assert CID.parse(str(root)) == root
