"""What a valid token document is, the one definition `import` and `audit` both read by: `checked_document`, the
least a document must be to be adopted (bounded JSON, an object naming its `image`), and `metadata_errors`,
everything wrong with it under the OpenSea metadata standard (what `audit` reports and a repair rewrites). Pure:
bytes in, a document or reasons out."""

from __future__ import annotations

from typing import Any

from mintprep.base import NotAcceptable
from mintprep.guards import parse_json_document
from mintprep.ipfs import ipfs_path


def checked_document(data: bytes) -> dict[str, Any]:
    """A metadata document: bounded JSON, an object with an `image` string; NotAcceptable saying why not."""
    try:
        document = parse_json_document(data)
    except NotAcceptable as exc:
        raise NotAcceptable(f"metadata: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("image"), str):
        raise NotAcceptable("metadata has no `image` string")
    return document


def metadata_errors(data: bytes, well_formed: str | None = None) -> tuple[list[str], dict[str, Any]]:
    """What is wrong with one token's metadata under the OpenSea standard (empty when valid), and the document.

    `well_formed`: an image URI already known to be an IPFS address (the one the manifest expects), not parsed
    again when the document names it."""
    try:  # within depth, without NaN: a 200,000-deep array was a RecursionError ("internal error")
        document = parse_json_document(data)
    except NotAcceptable as exc:
        return [str(exc)], {}
    if not isinstance(document, dict):
        return [f"expected a JSON object, got {type(document).__name__}"], {}
    errors = []
    if not isinstance(document.get("name"), str) or not document["name"]:
        errors.append("name: a non-empty string is required")
    image = document.get("image")
    if not isinstance(image, str) or (image != well_formed and ipfs_path(image) is None):
        errors.append(f"image: an ipfs:// URI (or a gateway URL with /ipfs/<CID>) is required, "
                      f"got {document.get('image')!r}")
    if not isinstance(document.get("description", ""), str):
        errors.append("description: must be a string")
    attributes = document.get("attributes", [])
    if not isinstance(attributes, list) or not all(
        isinstance(a, dict) and "value" in a and isinstance(a.get("trait_type", ""), str) for a in attributes
    ):
        errors.append("attributes: must be a list of {trait_type, value} objects")
    return errors, document
