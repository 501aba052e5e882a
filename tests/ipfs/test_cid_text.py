"""CID strings: mintprep's base32 (integer-based, for speed) writes and reads exactly what RFC 4648 base32 (Python's
`base64` module, lower case, unpadded, as multibase's `b` prefix wants) does, and refuses what it refuses."""

from __future__ import annotations

import base64
import random

import pytest

from mintprep.base.errors import UserError
from mintprep.ipfs.cid import CID, DAG_PB, RAW, b32decode, b32encode


def test_base32_matches_rfc4648_for_every_length():
    rng = random.Random(7)
    for size in range(0, 70):
        for _ in range(10):
            data = rng.randbytes(size)
            text = base64.b32encode(data).decode().lower().rstrip("=")
            assert b32encode(data) == text
            assert b32decode(text) == data and b32decode(text.upper()) == data


@pytest.mark.parametrize("text", ["a", "abc", "abcdef", "ab1a", "ab==", "aé"])
def test_base32_refuses_what_rfc4648_cannot_mean(text: str):
    with pytest.raises(ValueError):
        b32decode(text)


def test_cid_strings_round_trip_and_bad_ones_are_named():
    for version, codec in ((1, RAW), (1, DAG_PB), (0, DAG_PB)):
        cid = CID.for_block(b"piece", version=version, codec=codec)
        assert CID.parse(str(cid)) == cid and CID.parse(str(cid)).multihash_key == cid.multihash_key
    assert str(CID.for_block(b"hello", version=1, codec=RAW)) == \
        "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"  # `ipfs add --cid-version 1` of "hello"
    text = str(CID.for_block(b"piece", version=1, codec=RAW))
    for bad in (text[:-1], text[:-2] + "1a", text + "aa"):
        with pytest.raises(UserError, match="invalid CID"):
            CID.parse(bad)
