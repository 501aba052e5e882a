"""Trait draws are stable per token; metadata follows the OpenSea rules and carries nothing volatile."""

from __future__ import annotations

import json
import re
from collections import Counter

from mintprep.collection.config import load_collection, parse_collection
from mintprep.collection.manifest import PinnedPiece, build_manifest, metadata_files, provenance_hash
from mintprep.base.hashing import sha256_hex
from mintprep.collection.traits import plan_collection, plan_piece
from tests.conftest import EXAMPLE

SPEC = load_collection(EXAMPLE).spec


def test_weights_shape_the_draw():
    counts = Counter(dict(plan.traits)["flower"] for plan in plan_collection(SPEC.model_copy(update={"size": 3000})))
    weights = SPEC.prompt.traits["flower"]
    total = sum(weights.values())
    for value, weight in weights.items():
        assert abs(counts[value] / 3000 - weight / total) < 0.04, (value, counts)


def test_an_override_changes_exactly_one_piece():
    before = plan_collection(SPEC)
    other = next(v for v in SPEC.prompt.traits["flower"] if v != dict(before[6].traits)["flower"])
    after = plan_collection(parse_collection(EXAMPLE.read_text() + f"\npieces:\n  7: {{traits: {{flower: {other}}}}}\n"))
    assert [a.token_id for a, b in zip(before, after) if a != b] == [7]
    assert dict(after[6].traits)["flower"] == other and f"a {other} in" in after[6].prompt


def test_adding_a_trait_value_keeps_other_traits_of_every_piece():
    text = EXAMPLE.read_text().replace("palette: {warm: 2, cool: 2, mono: 1}", "palette: {warm: 2, cool: 2, mono: 1, neon: 1}")
    before, after = plan_collection(SPEC), plan_collection(parse_collection(text))
    assert [dict(p.traits)["flower"] for p in before] == [dict(p.traits)["flower"] for p in after]


def _pieces():
    return [PinnedPiece.of(plan_piece(SPEC, t), sha256_hex(bytes([t])), f"bafkreitoken{t}", {"seed": t}, f"key{t}")
            for t in (1, 2, 3)]


def test_metadata_follows_opensea_rules():
    files = metadata_files(SPEC, _pieces())
    assert sorted(files) == ["1.json", "2.json", "3.json", "collection.json"]
    for token_id in (1, 2, 3):
        meta = json.loads(files[f"{token_id}.json"])
        assert set(meta) <= {"name", "description", "image", "attributes", "external_url", "background_color",
                             "animation_url"}
        assert meta["name"] == f"Sunflower Study #{token_id}"
        assert re.fullmatch(r"ipfs://bafkreitoken\d", meta["image"])
        assert all(set(a) == {"trait_type", "value"} and isinstance(a["value"], str) for a in meta["attributes"])
        assert [a["trait_type"] for a in meta["attributes"]] == list(SPEC.prompt.traits)
    collection = json.loads(files["collection.json"])
    assert collection["name"] == SPEC.name and collection["image"] == "ipfs://bafkreitoken1"
    again = metadata_files(SPEC, _pieces())
    assert again == files, "metadata must be byte-identical for identical art"


def test_manifest_provenance_hash_is_over_image_hashes_in_token_order():
    pieces = _pieces()
    manifest = build_manifest(SPEC, list(reversed(pieces)), "bafyroot", {1: "m1", 2: "m2", 3: "m3"},
                              "kubo-cidv1").to_json()
    assert [t["token_id"] for t in manifest["tokens"]] == [1, 2, 3]
    # README "Provenance": sha256 over the raw 32-byte digests, file 1 first.
    assert manifest["provenance_hash"] == sha256_hex(b"".join(bytes.fromhex(p.png_sha256) for p in pieces))
    assert manifest["provenance_hash"] == provenance_hash([t["png_sha256"] for t in manifest["tokens"]])
    assert manifest["base_uri"] == "ipfs://bafyroot/"


def test_reordering_trait_values_in_the_yaml_changes_no_draw():
    text = EXAMPLE.read_text().replace("flower: {sunflower: 3, tulip: 2, poppy: 2, iris: 1, lotus: 1}",
                                       "flower: {lotus: 1, iris: 1, poppy: 2, tulip: 2, sunflower: 3}")
    assert text != EXAMPLE.read_text()
    assert [p.prompt for p in plan_collection(parse_collection(text))] == [p.prompt for p in plan_collection(SPEC)]
