"""Perceptual hashes and the near-duplicate search: the hash is imagehash's pHash bit for bit, the index finds
exactly what comparing every pair finds, and near copies of a picture fall within the default distance while
different pictures do not."""

from __future__ import annotations

import io
import random

import imagehash
import numpy as np
import pytest
import skimage.data
from PIL import Image

from mintprep.guards import near_duplicates
from mintprep.guards.near_duplicates import (distance, find_duplicates, near_pairs, phash, tile_difference,
                                             tile_signature)
from mintprep.guards.image_guards import GuardSettings
from tests.generate.guard_corpus import BROKEN, LEGIT
from tests.support.layered import layered_collection

DEFAULT = GuardSettings().duplicate_distance
PHOTOS = ["astronaut", "camera", "cat", "coffee", "coins", "rocket", "moon", "brick", "grass", "retina"]


def photo(name: str) -> np.ndarray:
    image = getattr(skimage.data, name)()
    return np.ascontiguousarray(np.stack([image] * 3, -1) if image.ndim == 2 else image[..., :3]).astype(np.uint8)


def corpus() -> list[np.ndarray]:
    return [make() for make in LEGIT.values()] + [make() for make, _ in BROKEN.values()] + [photo(n) for n in PHOTOS]


def test_phash_is_imagehash_phash_bit_for_bit() -> None:
    for image in corpus():
        assert phash(image) == int(str(imagehash.phash(Image.fromarray(image))), 16)


def test_near_copies_are_within_the_default_distance_and_different_pictures_are_not() -> None:
    original = photo("astronaut")
    buffer = io.BytesIO()
    Image.fromarray(original).save(buffer, format="JPEG", quality=60)
    copies = [np.asarray(Image.open(buffer).convert("RGB")),  # a lossy re-encode
              np.clip(original.astype(np.int16) + 12, 0, 255).astype(np.uint8),  # brighter
              np.asarray(Image.fromarray(original).resize((256, 256)).resize((512, 512)))]  # resampled
    for copy in copies:
        assert distance(phash(original), phash(copy)) <= DEFAULT
    distinct = [photo(n) for n in PHOTOS]
    nearest = min(distance(phash(a), phash(b)) for i, a in enumerate(distinct) for b in distinct[i + 1:])
    assert nearest > DEFAULT, nearest


@pytest.mark.parametrize("max_distance,lookup_block", [(0, 1 << 18), (3, 1 << 18), (6, 1 << 18), (6, 7), (9, 1 << 18),
                                                      (15, 1 << 18)])
def test_the_index_finds_what_comparing_every_pair_finds(max_distance: int, lookup_block: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """(`lookup_block` 7: the look-ups cut into blocks of a few pairs, as clustered hashes at scale are.)"""
    monkeypatch.setattr(near_duplicates, "PAIRS_PER_LOOKUP", lookup_block)
    rng = random.Random(max_distance)
    values = [rng.getrandbits(64) for _ in range(400)]
    # Clusters: each copy flips 0-16 random bits of one of the 400 originals, some copies share an original.
    values += [rng.choice(values) ^ sum(1 << b for b in rng.sample(range(64), rng.randint(0, 16))) for _ in range(200)]
    rng.shuffle(values)
    first, second, dist = near_pairs(values, max_distance)
    expected = {(i, j) for i in range(len(values)) for j in range(i + 1, len(values))
                if distance(values[i], values[j]) <= max_distance}
    pairs = list(zip(first.tolist(), second.tolist()))
    assert pairs == sorted(expected), "each pair once (a pair close in several bands is taken in the first), in order"
    assert all(d == distance(values[i], values[j]) for i, j, d in zip(first, second, dist))
    asked = []

    def even_sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        asked.append(len(a))
        return (a + b) % 2 == 0

    kept_first, kept_second, _ = near_pairs(values, max_distance, even_sums)
    assert list(zip(kept_first.tolist(), kept_second.tolist())) == [p for p in pairs if sum(p) % 2 == 0]
    assert sum(asked) == len(pairs), "`keep` is asked of each pair once"

    tokens = [(1000 + n, v) for n, v in enumerate(values)]
    kept: list[tuple[int, int]] = []
    want = {}
    for token_id, value in tokens:
        close = sorted((distance(value, v), n) for n, (t, v) in enumerate(kept) if distance(value, v) <= max_distance)
        if close:
            want[token_id] = (kept[close[0][1]][0], close[0][0])
        else:
            kept.append((token_id, value))
    found = find_duplicates(tokens, max_distance)
    assert {t: (m.key, m.distance) for t, m in found.items()} == want


def test_distance_beyond_what_the_bands_guarantee_is_refused() -> None:
    with pytest.raises(ValueError, match="max_distance"):
        near_pairs([1, 2], 16)


def test_on_the_layered_corpus_every_re_encoding_is_a_duplicate_and_no_layer_variant_is() -> None:
    """tests/support/layered.py: the global pHash alone flags layer variants (and other avatars on similar
    grounds); confirmed by tiles at the default thresholds, exactly the planted re-encodings remain."""
    corpus = layered_collection()
    defaults = GuardSettings()
    ranked = sorted(corpus.images)
    hashes = [(t, phash(corpus.images[t])) for t in ranked]
    tiles = [tile_signature(corpus.images[t]) for t in ranked]
    by_hash = find_duplicates(hashes, defaults.duplicate_distance)
    assert set(by_hash) & set(corpus.variants), "the pHash alone cannot tell a layer variant from a copy"
    found = find_duplicates(hashes, defaults.duplicate_distance, tiles, defaults.duplicate_tile_diff)
    assert {t: m.key for t, m in found.items()} == {t: original for t, (original, _) in corpus.duplicates.items()}
    assert all(m.tile_diff is not None and m.tile_diff <= defaults.duplicate_tile_diff for m in found.values())


def one_layer_pairs(count: int) -> list[tuple[int, int]]:
    """Pairs of tokens among the first `count` of tests/support/real_art.py that differ in one layer only."""
    from tests.support.real_art import traits

    by_rest: dict[tuple, list[int]] = {}
    for token_id in range(1, count + 1):
        layers = traits(token_id)
        for layer in layers:
            by_rest.setdefault((layer, *(v for k, v in sorted(layers.items()) if k != layer)), []).append(token_id)
    return sorted((a, b) for ids in by_rest.values() for i, a in enumerate(ids) for b in ids[i + 1:])


@pytest.mark.parametrize("side", [256, 384, 512])
def test_on_real_size_art_a_one_layer_variant_is_distinct_and_a_re_encoding_a_duplicate(side: int) -> None:
    """A 10,000-piece collection of layered avatars holds pairs that differ in one small layer (another pair of
    eyes); on a 4x4 grid of tiles at any size such a pair sat as close as a JPEG round trip (tokens 290 and 1154 of
    the bench art: 3.5 levels; 821 of 10,000 distinct pieces refused at 256 px). Tiles of about 16 px tell them
    apart, while both planted re-encodings of a piece stay duplicates."""
    from tests.support.real_art import art_rgb, near_copy, png_of

    defaults = GuardSettings()

    def candidate(a: np.ndarray, b: np.ndarray) -> bool:
        return distance(phash(a), phash(b)) <= defaults.duplicate_distance

    def duplicate(a: np.ndarray, b: np.ndarray) -> bool:
        return candidate(a, b) and tile_difference(tile_signature(a), tile_signature(b)) <= defaults.duplicate_tile_diff

    for token_id in (1, 2, 3):
        base = art_rgb(token_id, side)
        for jpeg in (True, False):
            copy = np.asarray(Image.open(io.BytesIO(near_copy(png_of(Image.fromarray(base)), jpeg=jpeg))).convert("RGB"))
            assert duplicate(base, copy), (token_id, jpeg)
    candidates = 0
    for a, b in [pair for pair in one_layer_pairs(1200) if 289 <= pair[0] <= 300]:
        art_a, art_b = art_rgb(a, side), art_rgb(b, side)
        candidates += candidate(art_a, art_b)
        assert not duplicate(art_a, art_b), (a, b)
    assert candidates >= 3, "these pairs are pHash candidates: the tiles are what tells them apart"


def test_at_384_px_an_accessory_variant_is_distinct() -> None:
    """Tokens 809 and 6569 of the bench art differ only in a small accessory; at 384 px, on 16x16 tiles of 24 px,
    their tile difference was 6.0, the default's own value (46 such pairs among 10,000 pieces were flagged).
    32x32 tiles of 12 px put them well apart."""
    from tests.support.real_art import art_rgb, traits

    first, second = traits(809), traits(6569)
    assert [layer for layer in first if first[layer] != second[layer]] == ["accessory"]
    a, b = art_rgb(809, 384), art_rgb(6569, 384)
    defaults = GuardSettings()
    assert distance(phash(a), phash(b)) <= defaults.duplicate_distance, "a pHash candidate: the tiles decide"
    assert tile_signature(a)[0] == 32
    assert tile_difference(tile_signature(a), tile_signature(b)) > defaults.duplicate_tile_diff + 2


def test_the_tile_grid_follows_the_image_size_and_two_sizes_meet_on_the_coarser() -> None:
    """Tiles of about 16 px: 4x4 at 64 px, 8x8 at 128, 16x16 at 256, 32x32 from 384 (the signature's first byte:
    384 px gets 12 px tiles, nearer 16 than 24). A 64 px
    and a 256 px copy of one picture compare on the 4x4 grid, and one changed 16 px tile of a 256 px image, which
    moves a 64 px tile by only a sixteenth as much, stands out."""
    picture = photo("astronaut")
    sized = {side: np.asarray(Image.fromarray(picture).resize((side, side), Image.Resampling.LANCZOS))
             for side in (64, 128, 256, 300, 384, 512)}
    assert {side: tile_signature(rgb)[0] for side, rgb in sized.items()} == {64: 4, 128: 8, 256: 16, 300: 16, 384: 32,
                                                                           512: 32}
    assert tile_difference(tile_signature(sized[64]), tile_signature(sized[256])) <= GuardSettings().duplicate_tile_diff
    patched = sized[256].copy()
    patched[96:112, 96:112] = 255 - patched[96:112, 96:112]
    fine = tile_difference(tile_signature(sized[256]), tile_signature(patched))
    coarse = tile_difference(tile_signature(sized[64]), tile_signature(patched))
    assert fine > 4 * coarse and fine > GuardSettings().duplicate_tile_diff


def test_the_cheap_bound_rejects_only_pairs_the_tiles_would_reject() -> None:
    """`within` answers from 4x4 block means first; it must decide every pair as the tile comparison does, at
    every grid and threshold, on pairs near the line (a copy: small noise everywhere; a variant: one block changed)."""
    rng = np.random.default_rng(7)
    base = rng.integers(0, 256, (300, near_duplicates.SIGNATURE_SIDE ** 2)).astype(np.int16)
    noisy = np.clip(base + rng.integers(-6, 7, base.shape), 0, 255)
    patched = base.copy()
    patched[:, :24] = np.clip(patched[:, :24] + rng.integers(-40, 41, (300, 1)), 0, 255)
    grids = rng.choice([4, 8, 16, 32], 900).astype(np.uint8)
    signatures = [bytes([grid]) + row.astype(np.uint8).tobytes()
                  for grid, row in zip(grids, np.concatenate([base, noisy, patched]))]
    table = near_duplicates.signature_table(signatures)
    first = np.repeat(np.arange(300), 2)
    second = np.concatenate([np.arange(300, 600)[:, None], np.arange(600, 900)[:, None]], axis=1).ravel()
    exact = near_duplicates.tile_differences(table, first, second)
    for threshold in (0.0, 2.5, 3.0, 6.0, 6.0621, 10.0, 40.0):
        assert np.array_equal(near_duplicates.within(table, first, second, threshold), exact <= threshold), threshold
    assert 0 < (exact <= 6.0).sum() < len(exact), "pairs on both sides of the default"


def test_no_piece_or_one_piece_has_no_duplicate() -> None:
    """A collection with nothing judged yet (a first run's first screening) or a single piece."""
    signature = tile_signature(photo("astronaut"))
    assert find_duplicates([], DEFAULT, [], GuardSettings().duplicate_tile_diff) == {}
    assert find_duplicates([(1, 5)], DEFAULT, [signature], GuardSettings().duplicate_tile_diff) == {}
