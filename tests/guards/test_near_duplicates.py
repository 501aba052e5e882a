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


@pytest.mark.parametrize("max_distance", [0, 3, 6, 9, 15])
def test_the_index_finds_what_comparing_every_pair_finds(max_distance: int) -> None:
    rng = random.Random(max_distance)
    values = [rng.getrandbits(64) for _ in range(400)]
    # Clusters: each copy flips 0-16 random bits of one of the 400 originals, some copies share an original.
    values += [rng.choice(values) ^ sum(1 << b for b in rng.sample(range(64), rng.randint(0, 16))) for _ in range(200)]
    rng.shuffle(values)
    first, second, dist = near_pairs(values, max_distance)
    expected = {(i, j) for i in range(len(values)) for j in range(i + 1, len(values))
                if distance(values[i], values[j]) <= max_distance}
    assert set(zip(first.tolist(), second.tolist())) == expected
    assert all(d == distance(values[i], values[j]) for i, j, d in zip(first, second, dist))

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
    tiles = {t: tile_signature(corpus.images[t]) for t in ranked}
    by_hash = find_duplicates(hashes, defaults.duplicate_distance)
    assert set(by_hash) & set(corpus.variants), "the pHash alone cannot tell a layer variant from a copy"
    found = find_duplicates(hashes, defaults.duplicate_distance, lambda a, b: tile_difference(tiles[a], tiles[b]),
                            defaults.duplicate_tile_diff)
    assert {t: m.key for t, m in found.items()} == {t: original for t, (original, _) in corpus.duplicates.items()}
    assert all(m.tile_diff is not None and m.tile_diff <= defaults.duplicate_tile_diff for m in found.values())
