"""What a hidden drop (`chain.reveal`) shows before the reveal: the placeholder image, token document and collection
document, and their URIs. A pure function of the config (CIDs computed, nothing pinned), so `check` knows what the
chain should hold without the ledger; `stages.withheld.pin_placeholders` pins them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mintprep.base import ConfigError, UserError, canonical_json, read_regular_file
from mintprep.collection.config import Collection
from mintprep.ipfs import get_profile, import_bytes


@dataclass(frozen=True)
class Placeholders:
    """What a hidden drop shows before the reveal: {name: bytes} to pin, the tokenURI and the contractURI."""

    files: dict[str, bytes]
    token_uri: str
    contract_uri: str


def placeholder_metadata(name: str, description: str, image_cid: str | None) -> dict[str, Any]:
    """The one token JSON every token shows before the reveal (pure)."""
    document: dict[str, Any] = {"name": f"{name} (unrevealed)", "description": description}
    if image_cid:
        document["image"] = f"ipfs://{image_cid}"
    return document


def placeholder_documents(col: Collection) -> Placeholders:
    """The placeholder image, token and collection documents of `col` and their URIs (CIDs computed here)."""
    settings = col.spec.chain.reveal
    assert settings is not None
    profile = get_profile(col.spec.ipfs.profile)
    cid = lambda data: str(import_bytes(data, profile).root)  # noqa: E731
    files: dict[str, bytes] = {}
    image_cid = None
    if settings.placeholder_uri:
        token_uri = settings.placeholder_uri
    else:
        path = col.base_dir / str(settings.placeholder_image)
        try:
            files["placeholder-image"] = read_regular_file(path, within=col.base_dir, what="placeholder image")
        except UserError as exc:
            raise ConfigError(f"chain.reveal.placeholder_image: {exc}", field="chain.reveal.placeholder_image") from None
        image_cid = cid(files["placeholder-image"])
        files["placeholder"] = canonical_json(placeholder_metadata(col.spec.name, col.spec.description, image_cid))
        token_uri = f"ipfs://{cid(files['placeholder'])}"
    # The collection document names no real image: OpenSea shows the placeholder (or none) until the reveal.
    collection = {"name": col.spec.name, "description": col.spec.description,
                  **({"image": f"ipfs://{image_cid}"} if image_cid else {})}
    files["placeholder-collection"] = canonical_json(collection)
    return Placeholders(files, token_uri, f"ipfs://{cid(files['placeholder-collection'])}")
