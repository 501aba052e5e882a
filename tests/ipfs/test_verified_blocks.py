"""The verified-block cache behind every multi-source reader (mintprep.ipfs.dag.first_verified): only bytes that
hash to their CID are kept, a block comes from the first source that has it intact, and the cache holds at most
its byte bound, the oldest blocks dropped first, so a walk over many images keeps only the last of them."""

from __future__ import annotations

from mintprep.ipfs.dag import VerifiedBlocks, first_verified
from mintprep.ipfs.unixfs import get_profile, import_bytes

PROFILE = get_profile("kubo-cidv1")


def _blocks(count: int, size: int = 1000) -> list[tuple[object, bytes]]:
    """(cid, bytes) of `count` one-block files of `size` bytes each."""
    return [(block.cid, block.data) for n in range(count) for block in import_bytes(bytes([n]) * size, PROFILE).blocks]


def test_the_cache_keeps_at_most_its_bound_dropping_the_oldest_first():
    blocks = _blocks(5)
    cache = VerifiedBlocks(max_bytes=2500)
    for cid, data in blocks:
        cache.add(cid, data)
    assert cache.bytes == 2000 and len(cache) == 2
    assert cache.get(blocks[0][0]) is None and cache.get(blocks[4][0]) == blocks[4][1]
    cache.resize(1000)
    assert len(cache) == 1 and cache.get(blocks[3][0]) is None and cache.get(blocks[4][0]) == blocks[4][1]


def test_a_source_that_lies_is_passed_over_and_only_verified_bytes_are_cached():
    cid, data = _blocks(1)[0]
    asked: list[str] = []

    def liar(cid):
        asked.append("liar")
        return b"not the block"

    def honest(cid):
        asked.append("honest")
        return data

    cache = VerifiedBlocks()
    fetch = first_verified([liar, honest], cache)
    assert fetch(cid) == data and fetch(cid) == data
    assert asked == ["liar", "honest"]  # the second read came from the cache
    assert cache.get(cid) == data and len(cache) == 1


def test_a_walk_past_the_bound_reads_again_from_the_sources():
    blocks = _blocks(4)
    by_cid = dict(blocks)
    reads: list[object] = []

    def source(cid):
        reads.append(cid)
        return by_cid.get(cid)

    fetch = first_verified([source], VerifiedBlocks(max_bytes=2000))
    for cid, _ in blocks:
        fetch(cid)
    fetch(blocks[3][0])  # still cached
    fetch(blocks[0][0])  # dropped: fetched again
    assert reads == [cid for cid, _ in blocks] + [blocks[0][0]]
