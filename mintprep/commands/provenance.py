"""`mintprep provenance`: the provenance hash recomputed from published images, compared with what the contract holds.

The rule is `mintprep.collection.manifest.provenance_hash` (README "Provenance"): metadata files 1..N of the
directory are read, each one's image fetched with every block hashed against its CID, and the raw sha256
digests of the image files hashed together in that order. Nothing comes from the ledger unless no source is
named: a collector with only the contract address and an IPFS gateway gets the same value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from mintprep.base import NoProgress, NotAcceptable, ProgressSink, UserError, in_order
from mintprep.collection import Collection, provenance_hash
from mintprep.guards import MAX_DOCUMENT_BYTES, parse_json_document
from mintprep.ipfs import (CID, BlockFetcher, FileTooLarge, NetworkReads, Unreadable, file_sha256, first_verified,
                           ipfs_path, list_directory, read_file, resolve)

TOKEN_FILE = re.compile(r"(\d+)(?:\.json)?")
RECIPE = "sha256(sha256(image of 1.json) || sha256(image of 2.json) || … || sha256(image of N.json)), raw 32-byte digests"


@dataclass(frozen=True)
class ProvenanceCheck:
    metadata_root: str
    images: int
    provenance_hash: str
    on_chain: str | None  # the contract's provenanceHash, when chain.contract is set
    rule: str = RECIPE

    @property
    def ok(self) -> bool | None:
        return None if self.on_chain is None else self.on_chain == self.provenance_hash

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def published_provenance(root: CID | str, fetch_block: BlockFetcher, progress: ProgressSink = NoProgress(),
                         threads: int | Callable[[], int] = 1) -> tuple[str, int]:
    """(provenance hash, N) of the metadata directory `root`: files 1.json..N.json, each naming its image. `threads`
    read tokens side by side (round trips to a gateway; `in_order`'s), their digests taken in token order."""
    listing = list_directory(root, fetch_block)
    # Token files are named N.json, or N where tokenURI appends no suffix.
    names = {int(m[1]): name for name in listing if (m := TOKEN_FILE.fullmatch(name))}
    ids = sorted(names)
    if not ids or ids != list(range(1, len(ids) + 1)):
        raise UserError(f"ipfs://{root}: not a token metadata directory (expected 1.json … N.json, found "
                        f"{len(ids)} numbered files)")
    images: dict[CID, dict[str, CID]] = {}

    def image_digest(token_id: int) -> str:
        where = f"ipfs://{root}/{names[token_id]}"
        try:  # a stranger's file: bounded, and JSON within limits (a 200,000-deep array was a RecursionError)
            document = parse_json_document(read_file(listing[names[token_id]], fetch_block, MAX_DOCUMENT_BYTES))
        except (FileTooLarge, NotAcceptable) as exc:
            raise UserError(f"{where}: {exc}") from None
        image = document.get("image") if isinstance(document, dict) else None
        cid = resolve(image, fetch_block, images) if isinstance(image, str) else None
        if cid is None:
            raise UserError(f"{where}: `image` is not an ipfs:// address ({str(image)[:80]!r})")
        return file_sha256(cid, fetch_block)  # hashed as it streams: an image is never held whole

    digests = []
    with progress.task("provenance", len(ids)) as advance:
        for _, digest in in_order(image_digest, ids, threads):
            digests.append(digest)
            advance()
    return provenance_hash(digests), len(ids)


def collection_provenance(col: Collection, verify_from: str | None, gateways: tuple[str, ...] = (),
                          progress: ProgressSink = NoProgress()) -> ProvenanceCheck:
    """Recompute from `verify_from` (ipfs://ROOT), else from the contract's base URI, else the ledger's last root."""
    from mintprep.ipfs import TrustlessGateway, make_backend

    on_chain, base_uri = _contract_values(col)
    source = verify_from or base_uri or _ledger_root(col)
    parsed = ipfs_path(source) if source else None
    if parsed is None:
        raise UserError("no published metadata to read: pass --verify-from ipfs://METADATA_ROOT"
                        if not source else f"--verify-from: expected ipfs://CID, got {source[:80]!r}")
    root, segments = parsed
    threads, network = col.spec.ipfs.pin_concurrency, NetworkReads()
    fetch = first_verified([network.backend(make_backend(col.spec.ipfs, col.state_dir)),
                            *(network.counted(TrustlessGateway(url, concurrency=threads).fetch_block)
                              for url in (*gateways, col.spec.ipfs.gateway))])
    try:
        if segments:
            root = resolve(source, fetch) or root
        value, count = published_provenance(root, fetch, progress, network.threads(threads))
    except Unreadable as exc:
        raise UserError(f"{source}: cannot be read intact ({exc}); pass --gateway URL of a gateway that has it") from None
    return ProvenanceCheck(str(root), count, value, on_chain)


def _contract_values(col: Collection) -> tuple[str | None, str | None]:
    """(provenanceHash hex, baseURI) of chain.contract; (None, None) when no contract is configured."""
    chain = col.spec.chain
    if not chain.contract:
        return None, None
    from web3 import Web3

    from mintprep.chain import connect, load_artifact

    _, url = chain.endpoint()
    drop = connect(url).eth.contract(address=Web3.to_checksum_address(chain.contract), abi=load_artifact().abi)
    return drop.functions.provenanceHash().call().hex(), drop.functions.baseURI().call() or None


def _ledger_root(col: Collection) -> str | None:
    from mintprep.state import Ledger

    if not (col.state_dir / "state.db").exists():
        return None
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        manifest = ledger.current_manifest()
    return f"ipfs://{manifest.metadata_root}" if manifest else None
