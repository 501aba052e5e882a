"""Files the tools creators use put beside the token files of a metadata directory: known companions, never a token
and never a problem. One rule, here, for every reader of such a directory (audit, import).

- HashLips Art Engine: `_metadata.json` (every token's document in one array, `build/json/_metadata.json`) and
  `_ipfsMetas.json` (what its NFTPort upload scripts recorded of each token), in HashLips/hashlips_art_engine.
- Metaplex Sugar: `collection.json` and its image `collection.<ext>` in the assets folder (the collection NFT),
  in metaplex-foundation/sugar; mintprep's own collection-level document (contractURI) has the same name.
- thirdweb's dashboard batch upload: one `metadata.csv` or `metadata.json` beside the numbered assets.
"""

from __future__ import annotations

from pathlib import PurePosixPath

COMPANIONS = {
    "_metadata.json": "HashLips: every token's metadata in one array",
    "_ipfsmetas.json": "HashLips: its upload scripts' record of each token",
    "collection.json": "Sugar: the collection NFT's metadata (mintprep: the contractURI document)",
    "metadata.csv": "thirdweb batch upload: every token's metadata",
    "metadata.json": "thirdweb batch upload: every token's metadata",
}
SUGAR_COLLECTION_IMAGES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".mp4"})


def companion(name: str) -> str | None:
    """What the entry `name` of a metadata directory is when a known tool wrote it beside the tokens; None for
    anything else (a token file, or an entry that should not be there)."""
    known = COMPANIONS.get(name.lower())
    if known is not None:
        return known
    path = PurePosixPath(name.lower())
    if path.stem == "collection" and path.suffix in SUGAR_COLLECTION_IMAGES:
        return "Sugar: the collection NFT's image"
    return None
