"""What the next metadata root must carry unchanged: each minted token's live piece and document.

`run` and `audit --repair` build the next root from these (unless the user passed --include-minted), so the
document a sold token shows, and the image it names, stay byte-identical; `check_base_uri_change` (in
mintprep.chain.base_uri) then proves it before any base URI moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mintprep.collection.manifest import PinnedPiece, token_file_name
from mintprep.collection.published import published_under
from mintprep.state.workspace import Workspace


@dataclass(frozen=True)
class KeptMinted:
    minted_files: tuple[int, ...] = ()  # metadata file ids minted tokens show: each keeps a file in every root
    pieces: dict[int, PinnedPiece] = field(default_factory=dict)  # file id -> the live piece, published again
    documents: dict[int, bytes] = field(default_factory=dict)  # file id -> the live document, byte for byte


def keep_minted(ws: Workspace, *, include_minted: bool) -> KeptMinted:
    """The minted tokens' live pieces and documents (nothing to keep with `include_minted`, or without a contract).

    Decided without web3 when there is no contract, so a run before deployment stays quick."""
    if ws.deployed_contract() is None:
        return KeptMinted()
    from mintprep.chain.base_uri import kept_documents
    from mintprep.chain.live_drop import live_drop
    from mintprep.ipfs import ipfs_path

    live = live_drop(ws)
    assert live is not None
    files = tuple(live.minted_files)
    parsed = ipfs_path(live.base_uri)
    if include_minted or parsed is None:  # asked to replace, or nothing live yet (base URI unset, unrevealed)
        return KeptMinted(files)
    documents = kept_documents(live.base_uri, files, ws.backend.fetch_block,
                               lambda t: token_file_name(t, live.token_suffix))
    pieces = ws.ledger.pieces()

    def request_key(token) -> str:
        piece = pieces.get(token.token_id)
        return piece.request_key if piece and piece.png_sha256 == token.png_sha256 else f"published:{token.png_sha256}"

    tokens = published_under(ws.ledger, str(parsed[0]), documents)
    return KeptMinted(files, {t: token.as_piece(request_key(token)) for t, token in tokens.items()}, documents)
