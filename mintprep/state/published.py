"""What has been published stays published: the invariants that protect tokens people may already hold.

(a) `complete_publication`: every token id ever published (in any manifest) or minted keeps a metadata file
    in every directory mintprep publishes; a token without an accepted replacement keeps its last published
    piece. The manifest stage builds every directory through it.
(b)+(c) `mintprep.chain.base_uri.check_base_uri_change`: the one gate before any on-chain base URI changes
    (repair, `contract set-base-uri` and `reveal` alike): the current base URI must be one this collection's
    ledger recorded (`require_recorded_base_uri`, here), and the new directory must resolve, verify and keep
    every minted token's document byte-identical unless `--include-minted`.
(d) lives in repair's planning (`repair.plan_repair`: restoring the same CID is always done); (e) in the
    block store (`BlockStore.put_many` replaces a block file whose bytes do not hash to its CID).
"""

from __future__ import annotations

from collections.abc import Iterable

from mintprep.base import UserError
from mintprep.state.ledger import Ledger
from mintprep.collection import ManifestToken, PinnedPiece, base_uri_for


def last_published(ledger: Ledger, wanted: Iterable[int]) -> dict[int, ManifestToken]:
    """The newest published entry of each wanted token id, looking back through older manifests only for ids
    the newer ones lack (so the usual case reads one manifest)."""
    missing, found = set(wanted), {}
    for record in ledger.manifests():
        if not missing:
            break
        for token in record.manifest.tokens:
            if token.token_id in missing:
                found[token.token_id] = token
                missing.discard(token.token_id)
    return found


def published_ids(ledger: Ledger, size: int, minted: Iterable[int] = ()) -> set[int]:
    """Token ids that must keep a metadata file: every id 1..size any manifest listed, and every minted id."""
    return {t for t in ledger.published_token_ids() if t <= size} | set(minted)


def complete_publication(ledger: Ledger, accepted: list[PinnedPiece], size: int,
                         minted: Iterable[int] = ()) -> list[PinnedPiece]:
    """`accepted` plus, for every published or minted token it lacks, that token's last published piece."""
    have = {p.token_id for p in accepted}
    lacking = published_ids(ledger, size, minted) - have
    pieces = ledger.pieces()
    kept = [token.as_piece(pieces[t].request_key if t in pieces else f"published:{token.png_sha256}")
            for t, token in last_published(ledger, lacking).items()]
    return sorted([*accepted, *kept], key=lambda p: p.token_id)


def recorded_base_uris(ledger: Ledger) -> set[str]:
    """Base URIs this collection's ledger made or imported (a contract mintprep deployed may start empty)."""
    recorded = {base_uri_for(root) for root in ledger.metadata_roots()}
    recorded |= {tx["base_uri"] for tx in ledger.chain_txs("set-base-uri") + ledger.chain_txs("imported-base-uri")}
    if ledger.has_own_deployment():
        recorded.add("")
    return recorded


def require_recorded_base_uri(ledger: Ledger, current: str) -> None:
    """(c) UserError unless the contract's current base URI is one this collection's ledger made or imported."""
    if current not in recorded_base_uris(ledger):
        raise UserError(f"the contract's base URI {current!r} is not one this collection's ledger recorded (made or "
                        "imported by mintprep); refusing to replace it. If the contract is this collection's, "
                        "run `mintprep import COLLECTION.yaml --from <contract address>` first")


def published_under(ledger: Ledger, root: str, wanted: Iterable[int]) -> dict[int, ManifestToken]:
    """The entries of `wanted` in the newest manifest this ledger recorded for metadata root `root`."""
    wanted = set(wanted)
    for record in ledger.manifests():
        if record.metadata_root == root:
            return {t: token for t, token in record.manifest.by_token().items() if t in wanted}
    raise UserError(f"ipfs://{root}/ is live on the contract but no manifest in this ledger names it; run "
                    "`mintprep import COLLECTION.yaml --from <contract address>` to adopt what is live")
