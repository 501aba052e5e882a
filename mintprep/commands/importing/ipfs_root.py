"""The `ipfs://` root reader: each token's metadata file in a metadata directory and its image, read over IPFS and
verified block by block against its CID (a gateway is not trusted), then checked; and the block reader every IPFS
read of an import goes through. The contract reader reads through here too."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from mintprep.base import NotAcceptable, UserError, in_order
from mintprep.collection import checked_document, token_file_name, token_ids
from mintprep.commands.importing.tokens import (FetchedDag, ImportedToken, ImportPlan, Source, TokenRead,
                                                document_attributes, document_provenance, document_traits)
from mintprep.guards import MAX_DOCUMENT_BYTES, MAX_IMPORTED_IMAGE_BYTES, decode_raster_image
from mintprep.ipfs import CID, BlockFetcher, Unreadable, first_verified, list_directory, read_file, resolve
from mintprep.state import Workspace


def block_reader(ws: Workspace, gateways: tuple[str, ...], plan: ImportPlan) -> BlockFetcher:
    """Blocks from the collection's own backend, the metadata files read so far, then each gateway; only bytes
    matching their CID are kept (in `plan.blocks`)."""
    from mintprep.ipfs import TrustlessGateway

    threads, network, max_block = ws.spec.ipfs.pin_concurrency, plan.network, ws.spec.ipfs.max_block_bytes
    return first_verified([network.backend(ws.backend), plan.document_blocks.get,
                           *(network.counted(TrustlessGateway(url, concurrency=threads,
                                                              max_block_bytes=max_block).fetch_block)
                             for url in gateways)], plan.blocks, max_block)


def read_ipfs_root(ws: Workspace, uri: str, plan: ImportPlan, wanted: list[int] | None = None, *,
                    fetch: BlockFetcher, task: str = "import") -> Iterator[TokenRead]:
    """Each token's file in the metadata directory `uri` names (`wanted` ids when the contract says which, else
    `size` ids from 0 or 1 as the directory has a token 0)."""
    try:
        root = resolve(uri, fetch)
        listing = list_directory(root, fetch, max_entries=4 * ws.spec.size + 1024)
    except Unreadable as exc:
        raise UserError(f"{uri}: the metadata directory cannot be read intact ({exc}); pass --gateway URL of a "
                        "gateway that has it") from None
    plan.metadata_root = str(root)
    plan.base_uri = plan.base_uri or f"ipfs://{root}/"
    if wanted is None:  # an ipfs:// root: its files' names say the suffix (ERC721A-style roots name them "N")
        wanted = list(token_ids(ws.spec.size, "0.json" in listing or "0" in listing))
        if not any(f"{t}.json" in listing for t in wanted) and any(str(t) in listing for t in wanted):
            plan.token_suffix = ""

    def locate(token_id: int) -> CID | str:
        names = (token_file_name(token_id, plan.token_suffix), f"{token_id}.json", str(token_id))
        name = next((n for n in names if n in listing), None)
        return f"no {names[0]} in {root}" if name is None else listing[name]

    yield from read_tokens(ws, plan, wanted, locate, fetch, task)


def read_tokens(ws: Workspace, plan: ImportPlan, wanted: list[int], locate: Callable[[int], CID | str],
                 fetch: BlockFetcher, task: str) -> Iterator[TokenRead]:
    """Each wanted token's metadata file (where `locate` finds it, or why not) and image, read by `ipfs.pin_concurrency`
    threads in token order where the first token's reads went over the network: one after another, an import from a
    gateway paid three round trips per token (162 ms a token at 50 ms each, measured), 27 minutes for 10,000 tokens.
    Where the first token was in the local store, one thread (NetworkReads). The images are judged as each batch
    is recorded, one at a time, not here: each thread judging at once held a decode and the guards' arrays of its
    own (tests/importing/test_import_streaming.py)."""
    def read(token_id: int) -> TokenRead | str:
        where = locate(token_id)
        return where if isinstance(where, str) else _read_token(token_id, where, plan.source, plan.listings, fetch)

    with ws.progress.task(task, len(wanted)) as advance:
        for token_id, read_or_skip in in_order(read, wanted, plan.network.threads(ws.spec.ipfs.pin_concurrency)):
            advance()
            if isinstance(read_or_skip, str):
                plan.skipped[token_id] = read_or_skip
            else:
                plan.tokens.append(read_or_skip.token)
                plan.document_blocks.update(read_or_skip.document_blocks)
                yield read_or_skip


def _read_token(token_id: int, metadata_cid: CID, source: Source, listings: dict[CID, dict[str, CID]],
                fetch: BlockFetcher) -> TokenRead | str:
    """A token's metadata file and image, read and checked; or why it cannot be imported. Safe in threads."""
    document_blocks: dict[CID, bytes] = {}

    def keeping(cid: CID) -> bytes | None:
        data = fetch(cid)
        if data is not None:
            document_blocks[cid] = data
        return data

    try:
        data = read_file(metadata_cid, keeping, MAX_DOCUMENT_BYTES)
    except Unreadable as exc:  # FileTooLarge included
        return f"metadata {metadata_cid}: {exc}"
    try:
        document = checked_document(data)
    except NotAcceptable as exc:
        return str(exc)
    try:
        image_cid = resolve(document["image"], fetch, listings)
        if image_cid is None:
            return f"image {document['image']!r} is not an IPFS address"
        image = read_file(image_cid, fetch, MAX_IMPORTED_IMAGE_BYTES)
        decode_raster_image(image)
    except (Unreadable, NotAcceptable) as exc:
        return f"image {document['image']}: {exc}"
    token = ImportedToken(token_id, data, str(metadata_cid), document["image"], str(image_cid), document_traits(document),
                          document_provenance(document, source), document_attributes(document))
    return TokenRead(token, image, FetchedDag(image_cid, fetch), document_blocks)
