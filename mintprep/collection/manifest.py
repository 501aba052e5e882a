"""ERC-721 metadata, ERC-7572 collection metadata and the collection manifest — pure functions and one model.

Nothing here is volatile (no timestamps, no absolute paths): unchanged art gives unchanged bytes,
so unchanged CIDs. tokenURI(id) = ipfs://<metadata root>/<id><suffix>: ".json" unless an adopted contract
appends nothing (the ERC721A shape).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from mintprep.collection.config import CollectionSpec
from mintprep.base import sha256_hex
from mintprep.collection.traits import PiecePlan

COLLECTION_METADATA_NAME = "collection.json"


@dataclass(frozen=True)
class PinnedPiece:
    """A token whose image passed every guard and is pinned (verified) under `image_cid`.

    `source_metadata_sha256` names (in the object store) the metadata document an imported token was
    published with: every field of it that mintprep does not own is carried into the files mintprep writes.
    """

    token_id: int
    attributes: list[dict[str, Any]]
    png_sha256: str
    image_cid: str
    provenance: dict[str, Any]
    request_key: str
    source_metadata_sha256: str | None = None

    @classmethod
    def of(cls, plan: PiecePlan, png_sha256: str, image_cid: str, provenance: dict[str, Any],
           request_key: str, source_metadata_sha256: str | None = None) -> "PinnedPiece":
        return cls(plan.token_id, plan.attributes, png_sha256, image_cid, provenance, request_key,
                   source_metadata_sha256)


@dataclass(frozen=True)
class ManifestToken:
    token_id: int
    name: str
    image_cid: str
    metadata_cid: str
    png_sha256: str
    attributes: list[dict[str, Any]]
    provenance: dict[str, Any]
    source_metadata_sha256: str | None = None

    def as_piece(self, request_key: str) -> PinnedPiece:
        """The piece this entry published, to publish again unchanged."""
        return PinnedPiece(self.token_id, self.attributes, self.png_sha256, self.image_cid, self.provenance,
                           request_key, self.source_metadata_sha256)


TOKEN_FIELDS = fields(ManifestToken)


@dataclass(frozen=True)
class Manifest:
    """The collection manifest, pinned beside the metadata: this model alone reads and writes its format."""

    metadata_root: str
    name: str = ""
    symbol: str = ""
    description: str = ""
    size: int = 0
    base_uri: str = ""
    contract_uri: str = ""
    provenance_hash: str = ""
    ipfs_profile: str = ""
    tokens: tuple[ManifestToken, ...] = field(default_factory=tuple)  # in token order
    # What follows the id in a token's file name (and in tokenURI): ".json", or "" for contracts that append
    # nothing (the ERC721A shape); every directory written for the collection keeps its names.
    token_suffix: str = ".json"

    def by_token(self) -> dict[int, ManifestToken]:
        return {t.token_id: t for t in self.tokens}

    def file_name(self, token_id: int) -> str:
        """Token `token_id`'s file in this collection's metadata directories, as its contract serves it."""
        return token_file_name(token_id, self.token_suffix)

    def to_json(self) -> dict[str, Any]:
        # Field by field rather than dataclasses.asdict, whose deep copy was most of the cost of this at 10k tokens;
        # the nested attributes and provenance are shared, as the frozen tokens share them.
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "tokens"}
        data["tokens"] = [{k: v for k, v in ((f.name, getattr(token, f.name)) for f in TOKEN_FIELDS)
                           if v is not None or k != "source_metadata_sha256"} for token in self.tokens]
        if data["token_suffix"] == ".json":
            del data["token_suffix"]  # the default stays unwritten: manifests (and their CIDs) as before
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Manifest":
        """A manifest as written, or a partial one recorded by hand (only `metadata_root` is required)."""
        entries: dict[tuple, Any] = {}
        tokens = sorted((ManifestToken(**_with_shared_entries(t, entries)) for t in data.get("tokens", [])),
                        key=lambda t: t.token_id)
        root = data["metadata_root"]
        derived = {"base_uri": base_uri_for(root), "contract_uri": contract_uri_for(root)}
        return cls(**{**derived, **data, "tokens": tuple(tokens)})

    def encode(self) -> bytes:
        return encode_json(self.to_json())


def _with_shared_entries(token: Any, entries: dict[tuple, Any]) -> Any:
    """A token of a manifest as written, each entry of its attributes equal to one an earlier token holds replaced
    by that one (`entries`: those held so far, by key): a trait's entry recurs across a collection, and parsed anew
    for every token the entries were half a manifest's memory (8 of 16.5 MiB at 10,000 tokens, tracemalloc). Equal
    means the same keys in the same order, value types and values (True is not 1, 1.0 is not 1, -0.0 is not 0.0),
    so the manifest encodes to the same bytes; an entry holding a list or a mapping is kept as it is. The entries
    are shared, as the frozen tokens share them, and never changed in place."""
    if not isinstance(token, dict) or not isinstance(token.get("attributes"), list):
        return token
    shared = []
    for entry in token["attributes"]:
        try:
            key = tuple((name, type(value), repr(value) if isinstance(value, float) else value)
                        for name, value in entry.items())
            shared.append(entries.setdefault(key, entry))
        except (AttributeError, TypeError):  # not a mapping, or a value that is (a list or mapping): not shared
            shared.append(entry)
    return {**token, "attributes": shared}


def encode_json(value: Any) -> bytes:
    """Stable, readable bytes: the same value always encodes to the same file (and CID).

    Keys are sorted because values reach here both fresh and read back from the ledger, and dict
    order must not change a CID.
    """
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def base_uri_for(metadata_root: str) -> str:
    """tokenURI(id) = base + id + suffix, so the base is the metadata directory with a trailing slash."""
    return f"ipfs://{metadata_root}/"


def token_file_name(token_id: int, suffix: str = ".json") -> str:
    """Token `token_id`'s file in the metadata directory: what base + id + suffix resolves to."""
    return f"{token_id}{suffix}"


def contract_uri_for(metadata_root: str) -> str:
    """ERC-7572 contractURI: the collection.json the manifest stage writes beside the token files."""
    return f"ipfs://{metadata_root}/{COLLECTION_METADATA_NAME}"


def token_name(spec: CollectionSpec, token_id: int) -> str:
    return f"{spec.name} #{token_id}"


def published_name(document: bytes | None) -> str | None:
    """The `name` an imported token's published metadata carries (None when it has none, or is no JSON object)."""
    try:
        name = json.loads(document).get("name") if document else None
    except (ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and name else None


def token_metadata(spec: CollectionSpec, piece: PinnedPiece) -> dict[str, Any]:
    """OpenSea metadata standard: name, description, image, attributes (+ optional fields when configured)."""
    metadata: dict[str, Any] = {
        "name": token_name(spec, piece.token_id),
        "description": spec.description,
        "image": f"ipfs://{piece.image_cid}",
        "attributes": piece.attributes,
    }
    metadata.update(spec.metadata.token_extras(piece.token_id))
    return metadata


def token_file(spec: CollectionSpec, piece: PinnedPiece, sources: Mapping[str, bytes]) -> bytes:
    """The bytes of `<id>.json`. An imported token keeps its published file byte for byte while its image is
    the published one; a new image changes `image` (and the attributes the yaml overrides) and nothing else."""
    if piece.source_metadata_sha256 is None:
        return encode_json(token_metadata(spec, piece))
    original = sources[piece.source_metadata_sha256]
    document = json.loads(original)
    if piece.provenance.get("source") == "imported" and piece.attributes == document.get("attributes"):
        return original
    document["image"] = f"ipfs://{piece.image_cid}"
    document["attributes"] = piece.attributes
    return encode_json(document)


def collection_metadata(spec: CollectionSpec, cover_cid: str | None) -> dict[str, Any]:
    """ERC-7572 contractURI JSON (name, symbol, description, image, external_link)."""
    metadata: dict[str, Any] = {"name": spec.name, "symbol": spec.symbol, "description": spec.description}
    if cover_cid:
        metadata["image"] = f"ipfs://{cover_cid}"
    if spec.metadata.external_url:
        metadata["external_link"] = spec.metadata.external_url
    return metadata


def metadata_files(spec: CollectionSpec, pieces: list[PinnedPiece],
                   sources: Mapping[str, bytes] | None = None, suffix: str = ".json") -> dict[str, bytes]:
    """The files of the metadata directory whose CID becomes the base URI (`sources`: imported documents)."""
    ordered = sorted(pieces, key=lambda p: p.token_id)
    files = {token_file_name(p.token_id, suffix): token_file(spec, p, sources or {}) for p in ordered}
    files[COLLECTION_METADATA_NAME] = encode_json(collection_metadata(spec, ordered[0].image_cid if ordered else None))
    return files


def provenance_hash(png_sha256s_in_token_order: list[str]) -> str:
    """The provenance rule (README "Provenance", MintprepDrop.provenanceHash): sha256(d1 || … || dN) over the raw
    32-byte sha256 digests of the image files that metadata files 1..N name, in that order. Fixes the set and
    its order before the first mint; hex digests in, hex out."""
    return sha256_hex(b"".join(bytes.fromhex(digest) for digest in png_sha256s_in_token_order))


def build_manifest(spec: CollectionSpec, pieces: list[PinnedPiece], metadata_root: str,
                   metadata_cids: dict[int, str], profile: str, token_suffix: str = ".json",
                   sources: Mapping[str, bytes] | None = None) -> Manifest:
    """`sources`: imported tokens' published documents, whose names the manifest (and so the page) shows."""
    ordered = sorted(pieces, key=lambda p: p.token_id)
    sources = sources or {}

    def name(piece: PinnedPiece) -> str:
        published = published_name(sources.get(piece.source_metadata_sha256)) if piece.source_metadata_sha256 else None
        return published or token_name(spec, piece.token_id)

    return Manifest(token_suffix=token_suffix,
        name=spec.name, symbol=spec.symbol, description=spec.description, size=spec.size,
        metadata_root=metadata_root, base_uri=base_uri_for(metadata_root),
        contract_uri=contract_uri_for(metadata_root),
        provenance_hash=provenance_hash([p.png_sha256 for p in ordered]), ipfs_profile=profile,
        tokens=tuple(ManifestToken(p.token_id, name(p), p.image_cid, metadata_cids[p.token_id],
                                   p.png_sha256, p.attributes, p.provenance, p.source_metadata_sha256)
                     for p in ordered),
    )
