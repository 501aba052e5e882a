"""A hidden drop (`chain.reveal`) publishes nothing of its art or real metadata before the reveal.

Until `mintprep reveal` releases them, the images, the real metadata directory and the manifest (which lists every
image CID) are pinned in the collection's local store only (`publication_backend`), so no public node holds, and
so announces, any of their CIDs; the contract's contractURI names a placeholder collection
document, and its tokens show the placeholder token document. Both placeholders are a pure function of the
config (`placeholder_documents`), so `check` knows what the chain should hold without the ledger. The directory's CID
reaches the chain only inside the provenance hash's commitment until the reveal sets the base URI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mintprep.base.errors import ConfigError, UserError
from mintprep.base.untrusted_files import read_regular_file
from mintprep.base.hashing import canonical_json
from mintprep.collection.config import Collection

if TYPE_CHECKING:
    from mintprep.ipfs import PinBackend
    from mintprep.state.ledger import Ledger
    from mintprep.state.workspace import Workspace

RELEASED_KIND = "metadata-released"  # ledger chain_txs row: the images and real directory are on the configured backend


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
    from mintprep.ipfs import get_profile, import_bytes  # here: `status` asks `withholding` and needs no CIDs

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


def pin_placeholders(ws: "Workspace") -> Placeholders:
    """Pin the placeholder documents on the configured backend (public: they hide nothing) and return them."""
    from mintprep.stages.pin import pin_bytes

    found = placeholder_documents(ws.col)
    image_name = str(ws.spec.chain.reveal.placeholder_image)  # type: ignore[union-attr]
    for kind, data in found.files.items():
        pin_bytes(ws.ledger, ws.backend, ws.profile, data, kind=kind,
                  name=image_name if kind == "placeholder-image" else f"{kind}.json")
    return found


def released(ledger: "Ledger") -> bool:
    return bool(ledger.chain_txs(RELEASED_KIND))


def withholding(col: Collection, ledger: "Ledger") -> bool:
    """A hidden drop whose art and real metadata have not been released yet: the one place this is decided."""
    return col.spec.chain.reveal is not None and not released(ledger)


def art_committed_before_reveal(col: Collection, ledger: "Ledger") -> bool:
    """A hidden drop deployed and not yet revealed, as the chain says (released art does not make it revealed):
    the contract's provenance hash (immutable since the deploy) commits to today's images, and `reveal` derives
    its secret from that hash, so no image may change until then."""
    if col.spec.chain.reveal is None:
        return False
    from mintprep.chain.live_drop import read_live_drop

    live = read_live_drop(col, ledger)
    return live is not None and not live.revealed


def publication_backend(ws: "Workspace") -> "PinBackend":
    """Where the images, the metadata directory and the manifest are pinned and read back from: the local store
    while withheld, else the configured backend."""
    if withholding(ws.col, ws.ledger):
        from mintprep.ipfs import LocalBackend

        return LocalBackend(ws.col.state_dir)
    return ws.backend
