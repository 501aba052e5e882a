"""The trustless UnixFS reader audit relies on: files and directories read back from blocks, every block hashed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mintprep.ipfs.reader import CorruptBlock, NotUnixFS, list_directory, read_file
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.ipfs.verify import BlockNotFound

# Small chunks and a narrow tree so a few KB make a multi-level DAG (v0: dag-pb leaves; v1: raw leaves).
PROFILES = [get_profile(name).with_options(chunker="size-64") for name in ("kubo-cidv1", "unixfs-v0-2015")]


def blocks_of(dag) -> dict:
    return {block.cid: block.data for block in dag.blocks}


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=20_000), v0=st.booleans())
def test_a_file_reads_back_byte_for_byte(data: bytes, v0: bool):
    dag = import_bytes(data, PROFILES[v0])
    assert read_file(dag.root, blocks_of(dag).get) == data


def test_a_hamt_directory_lists_every_entry():
    profile = get_profile("kubo-cidv1")
    entries = {f"{i}.json": import_bytes(f'{{"n": {i}}}'.encode(), profile) for i in range(1, 3001)}
    directory = import_directory(entries, profile)
    listing = list_directory(directory.root, blocks_of(directory).get)
    assert {name: str(cid) for name, cid in listing.items()} == {name: str(d.root) for name, d in entries.items()}


def test_missing_and_lying_blocks_are_told_apart():
    dag = import_bytes(random.Random(1).randbytes(5_000), PROFILES[0])
    store = blocks_of(dag)
    leaf = next(cid for cid in store if cid != dag.root)
    with pytest.raises(BlockNotFound):
        read_file(dag.root, {c: d for c, d in store.items() if c != leaf}.get)
    with pytest.raises(CorruptBlock) as lie:
        read_file(dag.root, {**store, leaf: b"x" + store[leaf][1:]}.get)
    assert lie.value.cid == leaf


def test_a_one_block_file_is_checked_like_a_tree():
    dag = import_bytes(b'{"name": "A #1"}', get_profile("kubo-cidv1"))  # a raw block is the whole file
    assert [block.cid for block in dag.blocks] == [dag.root] and dag.root.codec == 0x55
    assert read_file(str(dag.root), blocks_of(dag).get) == b'{"name": "A #1"}'
    with pytest.raises(CorruptBlock):
        read_file(dag.root, {dag.root: b'{"name": "A #2"}'}.get)
    with pytest.raises(BlockNotFound):
        read_file(dag.root, {}.get)


def test_a_file_is_not_a_directory_and_back():
    profile = get_profile("kubo-cidv1")
    file_dag = import_bytes(b"x" * 300_000, profile)  # two chunks: a dag-pb file root
    directory = import_directory({"a": file_dag}, profile)
    with pytest.raises(NotUnixFS):
        list_directory(file_dag.root, blocks_of(file_dag).get)
    with pytest.raises(NotUnixFS):
        read_file(directory.root, blocks_of(directory).get)
