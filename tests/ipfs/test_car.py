"""CAR v1: the header bytes the CARv1 spec gives (ipld.io/specs/transport/car/carv1), round trips and tamper detection (hypothesis)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mintprep.ipfs.car import CarError, CarReader, car_bytes
from mintprep.ipfs.cid import CID, DAG_PB, RAW, encode_varint
from mintprep.ipfs.unixfs import Block, get_profile, import_bytes


def test_header_bytes_match_the_spec_layout() -> None:
    v0 = import_bytes(b"hello world\n", get_profile("unixfs-v0-2015")).root
    car = car_bytes([v0], [])
    assert car.hex().startswith("38a265726f6f747381d82a58230012204") and car.endswith(bytes.fromhex("6776657273696f6e01"))
    v1 = import_bytes(b"hello world\n", get_profile("kubo-cidv1").with_options(raw_leaves=False)).root
    assert bytes.fromhex("d82a5825000170") in car_bytes([v1], [])


blocks_strategy = st.lists(
    st.tuples(st.binary(max_size=300), st.sampled_from([(0, DAG_PB), (1, DAG_PB), (1, RAW)])),
    min_size=1,
    max_size=12,
).map(lambda items: [Block(CID.for_block(data, version=v, codec=c), data) for data, (v, c) in items])


@settings(max_examples=60, deadline=None)
@given(blocks_strategy)
def test_round_trip_gives_back_the_same_blocks(blocks: list[Block]) -> None:
    reader = CarReader(io.BytesIO(car_bytes([blocks[0].cid], blocks)))
    assert reader.roots == [blocks[0].cid]
    assert list(reader) == blocks


@settings(max_examples=80, deadline=None)
@given(blocks_strategy, st.data())
def test_a_flipped_byte_in_any_block_is_detected(blocks: list[Block], data) -> None:
    car = bytearray(car_bytes([blocks[0].cid], blocks))
    header_length = car[0] + 1  # header < 128 bytes, so its varint is one byte
    offsets, position = [], header_length
    for block in blocks:  # where each block's data lies in the CAR
        cid_length = len(bytes(block.cid))
        position += len(encode_varint(cid_length + len(block.data))) + cid_length
        offsets += range(position, position + len(block.data))
        position += len(block.data)
    if not offsets:
        return  # all blocks empty: no data byte to flip
    target = data.draw(st.sampled_from(offsets))
    car[target] ^= data.draw(st.integers(1, 255))
    with pytest.raises(CarError, match="does not match its CID"):
        list(CarReader(io.BytesIO(bytes(car))))


def test_truncation_and_garbage_are_errors() -> None:
    dag = import_bytes(b"a" * 5000, get_profile("kubo-cidv1").with_options(chunker="size-1000"))
    car = car_bytes([dag.root], dag.blocks)
    with pytest.raises(CarError, match="truncated"):
        list(CarReader(io.BytesIO(car[:-10])))
    with pytest.raises(CarError):
        CarReader(io.BytesIO(b"\x05hello"))
    with pytest.raises(CarError):
        CarReader(io.BytesIO(b""))
