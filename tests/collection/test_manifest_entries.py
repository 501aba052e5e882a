"""A manifest read back holds each recurring attribute entry once (Manifest.from_json), and still encodes to the
bytes it was read from: entries are shared only when their keys, value types and values are the same."""

from __future__ import annotations

import json

from mintprep.collection.manifest import Manifest, encode_json


def _token(token_id: int, attributes: object) -> dict:
    return {"token_id": token_id, "name": f"#{token_id}", "image_cid": f"bafyimage{token_id}",
            "metadata_cid": f"bafymeta{token_id}", "png_sha256": f"{token_id:064x}", "attributes": attributes,
            "provenance": {"seed": token_id}}


ODD = [{"trait_type": "level", "value": 1}, {"trait_type": "level", "value": True},
       {"trait_type": "level", "value": 1.0}, {"trait_type": "tilt", "value": -0.0},
       {"trait_type": "tilt", "value": 0.0}, {"value": "red", "trait_type": "hat"}]


def _written() -> dict:
    tokens = [_token(t, [{"trait_type": "hat", "value": "red"}, {"trait_type": "eyes", "value": f"v{t % 2}"},
                         {"trait_type": "tags", "value": ["a", "b"]}, "a bare string"]) for t in range(1, 5)]
    tokens += [_token(5 + i, [entry]) for i, entry in enumerate(ODD)]
    tokens.append(_token(11, "not a list"))
    return {"metadata_root": "bafyroot", "name": "Entries", "tokens": tokens}


def test_equal_entries_are_held_once_and_the_manifest_encodes_as_written() -> None:
    written = encode_json(_written())
    manifest = Manifest.from_json(json.loads(written))
    tokens = manifest.by_token()
    assert tokens[1].attributes[0] is tokens[4].attributes[0]  # {"hat": "red"}: one object for every token
    assert tokens[1].attributes[1] is tokens[3].attributes[1] and tokens[1].attributes[1] is not tokens[2].attributes[1]
    assert tokens[1].attributes[2] is not tokens[2].attributes[2]  # a list value: each token keeps its own
    # 1, True and 1.0 are equal in Python and -0.0 == 0.0, yet each encodes differently: none shares another's entry
    odd = [tokens[5 + i].attributes[0] for i in range(len(ODD))]
    assert len({id(entry) for entry in odd}) == len(ODD)
    assert [type(entry["value"]) for entry in odd[:3]] == [int, bool, float]
    assert tokens[11].attributes == "not a list"
    # the bytes: every token's entries as written (json.dumps tells 1 from true from 1.0 and -0.0 from 0.0)
    assert encode_json(manifest.to_json()["tokens"]) == encode_json(json.loads(written)["tokens"])
