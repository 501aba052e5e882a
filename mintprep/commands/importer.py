"""`mintprep import`: adopt a collection made elsewhere, so audit, repair, status and the page work on it.

The source is a contract address (its family detected from the chain, mintprep.chain.families; its minted ids,
base URI or per-token URIs read over RPC), an `ipfs://` metadata root, or a local folder of images and metadata.
Everything fetched from IPFS is verified block by block against its CID (a gateway is not trusted), the blocks
are pinned on the collection's backend under their own CIDs (a healthy token keeps its CIDs byte for byte), and
the ledger records each token as an imported piece with the traits and provenance its metadata carries.

Every image must be a raster image within size and pixel limits and every document bounded JSON
(mintprep.guards.imported_content) before anything is recorded; a token that is not is skipped, named, and the
import exits 1. The recording is journaled: a killed import is finished by running it again, and importing again
from the same source (a folder fixed since) updates what changed.

Tokens are read, checked and recorded in batches of at most `TOKENS_PER_BATCH` tokens and `BATCH_IMAGE_BYTES` of
images (objects at two syncs per batch, pins in one backend batch and one ledger transaction), so memory holds one
batch of images, not the collection; a large folder is read and checked in worker processes while this one
records (mintprep.commands.folder_reads). A contract source's minted tokens are read and verified one at a time
first, as every one must be readable before anything is written; then every token is read again as it is recorded
(from the block cache, or the source again past its bound), never all held at once. On the local store
each image and document is one file (its block a hard link to its object): creating a file is what this project's
disk charges most for.
"""

from __future__ import annotations

import functools
import json
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from mintprep.collection.config import Collection
from mintprep.base.errors import UserError
from mintprep.base.faults import fault_point
from mintprep.base.ordered_threads import in_order
from mintprep.guards.imported_content import (MAX_DOCUMENT_BYTES, MAX_IMPORTED_IMAGE_BYTES, NotAcceptable,
                                              check_raster_image)
from mintprep.ipfs import (CID, Block, BlockFetcher, DagImport, LocalBackend, NetworkReads, Unreadable, VerifiedBlocks,
                           first_verified, import_bytes, ipfs_path, list_directory, read_file, resolve, walk_dag)
from mintprep.stages.pin import PinItem, pin_content, pin_pieces
from mintprep.state.ledger import IMPORTED_KEY, IMPORTED_TX, Ledger, PieceRecord
from mintprep.collection.manifest import PinnedPiece, build_manifest, token_file_name
from mintprep.collection.traits import token_ids
from mintprep.collection.token_document import checked_document
from mintprep.commands.folder_reads import metadata_folder, read_tokens
from mintprep.stages.publish import publish_metadata, record_manifest
from mintprep.base.progress import NoProgress, ProgressSink
from mintprep.state.workspace import Workspace

ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
# Metadata keys that say how a piece was made; kept in its provenance (HashLips writes dna, edition, date).
PROVENANCE_KEYS = ("dna", "edition", "date", "seed", "prompt", "compiler")
JOURNAL_KIND = "import"
# A batch's tokens are recorded at up to four syncs (objects, then blocks) and one pin transaction; a larger batch
# pays those fixed costs over more tokens, the byte bound keeps what memory holds small whatever the images weigh
# (a batch of 64 MiB images is one image).
TOKENS_PER_BATCH = 1024
FIRST_BATCH = 256
BATCH_IMAGE_BYTES = 64 * 1024 * 1024
# Verified blocks kept once read: a batch's images, the next token's (up to the image cap) and directory nodes, so
# what a batch pins is not fetched twice; past it the oldest go (stored by then, or read from the source again).
BLOCK_CACHE_BYTES = 3 * BATCH_IMAGE_BYTES
# Then the directories are pinned: walks over blocks already stored, where a large cache would only fill with images.
DIRECTORY_CACHE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    kind: Literal["contract", "ipfs", "folder"]
    text: str


@dataclass(frozen=True)
class FetchedDag:
    """Blocks read (and verified) from elsewhere, pinned as they are: what a backend's `pin_dag` needs. The blocks
    are walked afresh on each use (a directory of 10,000 images is never held whole)."""

    root: CID
    fetch: BlockFetcher

    @property
    def blocks(self) -> Iterator[Block]:
        return _dag_blocks(self.root, self.fetch)

    @functools.cached_property
    def size(self) -> int:
        """Bytes of its blocks: what a backend cuts its uploads by (kubo's CARs)."""
        return sum(len(block.data) for block in self.blocks)


@dataclass(frozen=True)
class ImportedToken:
    token_id: int
    metadata: bytes  # the published file (folder sources: with `image` made an ipfs:// URI)
    metadata_cid: str | None  # in the published directory; None for a folder source
    image_uri: str
    image_cid: str
    traits: list[tuple[str, str]]
    provenance: dict[str, Any]
    attributes: list[Any] = field(default_factory=list, repr=False)  # the document's, as the manifest keeps them

    def to_json(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "image": self.image_uri, "image_cid": self.image_cid,
                "metadata_cid": self.metadata_cid, "traits": dict(self.traits), "provenance": self.provenance}


@dataclass(frozen=True)
class _Read:
    """A token read and checked, with its image: held only until its batch is recorded."""

    token: ImportedToken
    image: bytes
    dag: DagImport | FetchedDag
    document_blocks: dict[CID, bytes] = field(default_factory=dict)  # its metadata file's, as fetched (verified)


@dataclass
class ImportPlan:
    source: Source
    metadata_root: str | None = None
    base_uri: str | None = None
    contract: str | None = None
    owner: str | None = None
    chain_id: int | None = None
    family: str | None = None  # the contract's shape (mintprep.chain.families)
    token_suffix: str = ".json"  # what follows the id in the contract's token URIs
    token_uris: dict[int, str] = field(default_factory=dict)  # per-token-URI contracts: minted id -> tokenURI
    minted: list[int] = field(default_factory=list)
    tokens: list[ImportedToken] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)  # token id -> why it was not imported (left to `run`)
    blocks: VerifiedBlocks = field(default_factory=lambda: VerifiedBlocks(BLOCK_CACHE_BYTES), repr=False)
    listings: dict[CID, dict[str, CID]] = field(default_factory=dict, repr=False)  # directories, listed once
    # Every metadata file's blocks as read: the metadata directory pinned at the end is walked from these, not
    # fetched again one block after another (400 round trips for 400 tokens, measured).
    document_blocks: dict[CID, bytes] = field(default_factory=dict, repr=False)
    network: NetworkReads = field(default_factory=NetworkReads, repr=False)  # shared with a scratch plan

    def to_json(self) -> dict[str, Any]:
        return {"source": {"kind": self.source.kind, "text": self.source.text}, "metadata_root": self.metadata_root,
                "base_uri": self.base_uri, "contract": self.contract, "family": self.family, "minted": self.minted,
                "imported": [t.to_json() for t in self.tokens],
                "skipped": {str(t): why for t, why in sorted(self.skipped.items())}}


def parse_source(text: str, cwd: Path) -> Source:
    """A folder is read relative to `cwd` (the shell's current directory), as every command line tool does."""
    if ADDRESS.match(text):
        return Source("contract", text)
    if ipfs_path(text) is not None:
        return Source("ipfs", text)
    folder = (cwd / Path(text).expanduser()).resolve()
    if folder.is_dir():
        return Source("folder", str(folder))
    raise UserError(f"--from {text!r}: expected a contract address (0x…), an ipfs:// metadata root, or a folder "
                    "of images and metadata")


def import_collection(col: Collection, source_text: str, *, gateways: tuple[str, ...] = (), dry_run: bool = False,
                      progress: ProgressSink | None = None, cwd: Path | None = None) -> ImportPlan:
    """Read and verify everything the source publishes; unless `dry_run`, pin it and record it in the ledger.

    `gateways` default to the collection's `ipfs.gateways` (tried in turn), else its `ipfs.gateway`."""
    source = parse_source(source_text, cwd or Path.cwd())
    gateways = gateways or col.spec.ipfs.read_gateways()
    with _workspace(col, dry_run, progress) as ws:
        _require_importable(ws, source)
        plan = ImportPlan(source)
        fetch = _block_reader(ws, gateways, plan)
        reads: Iterable[_Read]
        match source.kind:  # the one place that reads by the kind of source
            case "contract":  # through its family: its base URI's directory, or each token's own URI
                reads = _read_contract(ws, plan, fetch)
            case "ipfs":
                reads = _read_ipfs_root(ws, source.text, plan, fetch=fetch)
            case "folder":
                reads = _read_folder(ws, Path(source.text), plan)
        if dry_run:
            for _ in reads:
                plan.blocks.clear()
            _require_minted(plan)
        else:
            _record(ws, plan, reads, fetch)
    return plan


def _require_minted(plan: ImportPlan) -> None:
    """Every minted token was read: a collection adopted without one would break a token someone bought."""
    read = {token.token_id for token in plan.tokens}  # once: built per minted id, it was quadratic at 10,000
    lacking = sorted(t for t in plan.minted if t not in read)
    if lacking:
        raise UserError(f"{plan.source.text}: minted token(s) {', '.join(map(str, lacking))} could not be imported ("
                        + "; ".join(plan.skipped.get(t, "beyond size") for t in lacking[:3]) + ")")


def _require_importable(ws: Workspace, source: Source) -> None:
    """A fresh ledger, or one whose published state came from this same source (an import to finish or update)."""
    ledger = ws.ledger
    if ledger.current_manifest() is None:
        return
    journal = ledger.open_journal(JOURNAL_KIND) or ledger.last_journal(JOURNAL_KIND)
    earlier = {journal.plan["source"]} if journal else ledger.import_sources()
    if earlier == {source.text}:
        return
    named = f" (imported from {', '.join(sorted(earlier))})" if earlier else ""
    raise UserError(f"{ws.col.path}: this collection already has pinned metadata{named}; import adopts a collection "
                    "into a fresh ledger, or imports again from the same source")


@contextmanager
def _workspace(col: Collection, dry_run: bool, progress: ProgressSink | None) -> Iterator[Workspace]:
    """The collection's workspace; for a dry run of a collection without a ledger, a throwaway ledger (a dry run
    writes nothing beside the collection file) over the collection's own block store."""
    if dry_run and not col.state.has_ledger():
        with tempfile.TemporaryDirectory(prefix="mintprep-import-") as scratch, Ledger.open(Path(scratch)) as ledger:
            workspace = Workspace(col, ledger, progress or NoProgress())
            yield workspace
        return
    with Workspace.open(col, readonly=dry_run, progress=progress) as workspace:
        yield workspace


# -- reading -------------------------------------------------------------------------------------

def _block_reader(ws: Workspace, gateways: tuple[str, ...], plan: ImportPlan) -> BlockFetcher:
    """Blocks from the collection's own backend, the metadata files read so far, then each gateway; only bytes
    matching their CID are kept (in `plan.blocks`)."""
    from mintprep.ipfs import TrustlessGateway

    threads, network = ws.spec.ipfs.pin_concurrency, plan.network
    return first_verified([network.backend(ws.backend), plan.document_blocks.get,
                           *(network.counted(TrustlessGateway(url, concurrency=threads).fetch_block)
                             for url in gateways)], plan.blocks)


def _read_contract(ws: Workspace, plan: ImportPlan, fetch: BlockFetcher) -> Iterator[_Read]:
    """The contract's family (detected from the chain), its minted ids, and what each token's URI serves: every
    minted token read and verified before this returns (UserError naming those lacking), then every token read as
    the returned iterator is consumed."""
    from mintprep.chain.families import detect_family
    from mintprep.chain.rpc import RPC_FAILURES, connect
    from mintprep.net.urls import redact_url

    configured = ws.spec.chain.contract
    if configured and configured.lower() != plan.source.text.lower():
        raise UserError(f"--from {plan.source.text}: chain.contract in {ws.col.path.name} names another contract "
                        f"({configured})")
    network, url = ws.spec.chain.endpoint()
    w3 = connect(url)
    try:
        family = detect_family(w3, plan.source.text)
        plan.minted = family.minted_ids()
        plan.base_uri = family.base_uri(plan.minted)
        plan.owner = family.owner()
        token_uris = {t: family.token_uri(t) for t in plan.minted} if family.token_suffix is None else {}
    except UserError as exc:
        raise UserError(f"--from {plan.source.text} on {network.name}: {exc}") from None
    except RPC_FAILURES as exc:
        raise UserError(f"--from {plan.source.text}: cannot read its minted tokens and URIs through "
                        f"{redact_url(url)} ({type(exc).__name__})") from None
    plan.contract, plan.chain_id, plan.family = family.address, network.chain_id, family.name
    if family.token_suffix is None:  # per-token URIs: each minted token read from its own
        return _minted_first(plan, functools.partial(_read_token_uris, ws, token_uris, fetch=fetch), plan.minted)
    plan.token_suffix = family.token_suffix
    if plan.base_uri is None:
        raise UserError(f"--from {plan.source.text}: its tokens' URIs show no base URI (not revealed yet, or nothing "
                        "minted); import its ipfs:// metadata root instead")
    if ipfs_path(plan.base_uri) is None:
        raise UserError(f"--from {plan.source.text}: its base URI {plan.base_uri!r} is not an IPFS address; "
                        "import reads metadata trustlessly from IPFS only")
    first = family.first_id(plan.minted)
    return _minted_first(plan, functools.partial(_read_ipfs_root, ws, plan.base_uri, fetch=fetch),
                         sorted(set(range(first, first + ws.spec.size)) | set(plan.minted)))


def _minted_first(plan: ImportPlan, read: Callable[..., Iterator[_Read]], wanted: list[int]) -> Iterator[_Read]:
    """`read(plan, wanted)` once `read` has read every minted token, one at a time into a scratch plan, without a
    lacking one: reading the whole contract into a list for that check held every image of it at once."""
    check = replace(plan, tokens=[], skipped={})  # its caches (blocks, listings) shared: the reads below reuse them
    for _ in read(check, plan.minted, task="check minted"):
        pass
    _require_minted(check)
    return read(plan, wanted)


def _read_token_uris(ws: Workspace, token_uris: dict[int, str], plan: ImportPlan, wanted: list[int], *,
                     fetch: BlockFetcher, task: str = "import") -> Iterator[_Read]:
    plan.token_uris = token_uris

    def locate(token_id: int) -> CID | str:
        uri = token_uris[token_id]
        try:
            metadata_cid = resolve(uri, fetch, plan.listings)
        except Unreadable as exc:
            return f"tokenURI {uri} unreadable: {exc}"
        return f"tokenURI {uri!r} is not an IPFS address" if metadata_cid is None else metadata_cid

    yield from _read_tokens(ws, plan, sorted(wanted), locate, fetch, task)


def _read_ipfs_root(ws: Workspace, uri: str, plan: ImportPlan, wanted: list[int] | None = None, *,
                    fetch: BlockFetcher, task: str = "import") -> Iterator[_Read]:
    """Each token's file in the metadata directory `uri` names (`wanted` ids when the contract says which, else
    `size` ids from 0 or 1 as the directory has a token 0)."""
    try:
        root = resolve(uri, fetch)
        listing = list_directory(root, fetch)
    except Unreadable as exc:
        raise UserError(f"{uri}: the metadata directory cannot be read intact ({exc}); pass --gateway URL of a "
                        "gateway that has it") from None
    plan.metadata_root = str(root)
    plan.base_uri = plan.base_uri or f"ipfs://{root}/"
    if wanted is None:
        wanted = list(token_ids(ws.spec.size, "0.json" in listing or "0" in listing))

    def locate(token_id: int) -> CID | str:
        names = (token_file_name(token_id, plan.token_suffix), f"{token_id}.json", str(token_id))
        name = next((n for n in names if n in listing), None)
        return f"no {names[0]} in {root}" if name is None else listing[name]

    yield from _read_tokens(ws, plan, wanted, locate, fetch, task)


def _read_tokens(ws: Workspace, plan: ImportPlan, wanted: list[int], locate: Callable[[int], CID | str],
                 fetch: BlockFetcher, task: str) -> Iterator[_Read]:
    """Each wanted token's metadata file (where `locate` finds it, or why not) and image, read by `ipfs.pin_concurrency`
    threads in token order where the first token's reads went over the network: one after another, an import from a
    gateway paid three round trips per token (162 ms a token at 50 ms each, measured), 27 minutes for 10,000 tokens.
    Where the first token was in the local store, one thread (NetworkReads)."""
    def read(token_id: int) -> _Read | str:
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
                fetch: BlockFetcher) -> _Read | str:
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
        check_raster_image(image)
    except (Unreadable, NotAcceptable) as exc:
        return f"image {document['image']}: {exc}"
    token = ImportedToken(token_id, data, str(metadata_cid), document["image"], str(image_cid), _traits(document),
                          _provenance(document, source), _attributes(document))
    return _Read(token, image, FetchedDag(image_cid, fetch), document_blocks)


def _read_folder(ws: Workspace, folder: Path, plan: ImportPlan) -> Iterator[_Read]:
    """`<id>.json` (or `<id>`) per token, its `image` a path relative to the folder (or to a json/ subfolder); read
    and checked by `folder_reads`, in worker processes for a large folder."""
    meta_dir = metadata_folder(folder)
    zero = (meta_dir / "0.json").is_file() or (meta_dir / "0").is_file()
    with ws.progress.task("import", ws.spec.size) as advance:
        for read in read_tokens(folder, list(token_ids(ws.spec.size, zero))):
            advance()
            if read.document is None:
                plan.skipped[read.token_id] = read.skipped
                continue
            dag = import_bytes(read.image, ws.profile)
            image_cid = str(dag.root)
            document = dict(read.document, image=f"ipfs://{image_cid}")  # the folder's path means nothing once pinned
            token = ImportedToken(read.token_id, json.dumps(document, indent=2, ensure_ascii=False).encode(), None,
                                  f"ipfs://{image_cid}", image_cid, _traits(document),
                                  _provenance(document, plan.source), _attributes(document))
            plan.tokens.append(token)
            yield _Read(token, read.image, dag)


def _traits(document: dict[str, Any]) -> list[tuple[str, str]]:
    attributes = document.get("attributes")
    if not isinstance(attributes, list):
        return []
    return [(str(a["trait_type"]), str(a["value"])) for a in attributes
            if isinstance(a, dict) and "trait_type" in a and "value" in a]


def _provenance(document: dict[str, Any], source: Source) -> dict[str, Any]:
    carried = {key: document[key] for key in PROVENANCE_KEYS if key in document}
    return {"source": "imported", "from": source.text, **carried}


# -- recording -----------------------------------------------------------------------------------

class _Writes:
    """Counts durable writes; each is a fault point, `import-write-N` (base.faults: a test's kill)."""

    def __init__(self) -> None:
        self.count = 0

    def done(self) -> None:
        self.count += 1
        fault_point(f"import-write-{self.count}")


def _record(ws: Workspace, plan: ImportPlan, reads: Iterable[_Read], fetch: BlockFetcher) -> None:
    """Journal, then per batch of tokens: objects, pins (verified, by the pin stage); then directories and ledger
    rows. Every step is idempotent, so a killed import is finished (and a changed source's import updated) by
    importing again; the journal names the source meanwhile. Fetched DAGs are pinned as they are, under their own
    CIDs, whatever the ledger holds for the same bytes (`force`): a healthy token keeps its CIDs byte for byte."""
    ledger, writes = ws.ledger, _Writes()
    if isinstance(ws.backend, LocalBackend):  # each image and document is one file, its block a link to it
        ws.backend.store.copies = ledger.objects
    journal = ledger.open_journal(JOURNAL_KIND) or ledger.begin_journal(JOURNAL_KIND, {"source": plan.source.text})
    writes.done()
    pieces = []
    for batch in _batches(reads):
        pieces += _record_batch(ws, batch, writes)
        plan.blocks.clear()  # this batch's blocks are stored and pinned: read them from the backend from here on
    _require_minted(plan)  # read before, but a source may fail the second time: no manifest without a minted token
    plan.blocks.resize(DIRECTORY_CACHE_BYTES)
    pin = functools.partial(pin_content, ledger, ws.backend, ws.profile, force=True)
    # Images named by a path (ipfs://<images dir>/<n>.png) resolve only while their directory is pinned too; a
    # per-token contract's metadata files are pinned each under its own CID (what tokenURI names).
    directories = {parsed[0] for parsed in (ipfs_path(t.image_uri) for t in plan.tokens) if parsed and parsed[1]}
    pins = [(d, "image-directory", f"{ws.spec.symbol}-image-directory") for d in sorted(directories, key=str)]
    if plan.metadata_root:
        pins.append((CID.parse(plan.metadata_root), "metadata", f"{ws.spec.symbol}-metadata"))
    pins += [(CID.parse(str(t.metadata_cid)), "metadata-file", f"{ws.spec.symbol}-{t.token_id}.json")
             for t in plan.tokens if plan.token_uris and t.metadata_cid]
    for root, kind, name in pins:
        pin(content_sha256=f"imported:{root}", make_dag=lambda root=root: FetchedDag(root, fetch), kind=kind, name=name)
        writes.done()
    if plan.metadata_root:
        cids = {t.token_id: str(t.metadata_cid) for t in plan.tokens}
        # A foreign directory holds no collection.json of mintprep's: its contractURI is not this manifest's to say
        # (empty: `check` leaves it alone until a repair publishes a directory mintprep wrote).
        sources = {p.source_metadata_sha256: t.metadata for p, t in zip(pieces, plan.tokens) if p.source_metadata_sha256}
        adopted = replace(build_manifest(ws.spec, pieces, plan.metadata_root, cids, ws.profile.name, plan.token_suffix,
                                         sources),
                          contract_uri="")
        manifest = record_manifest(ws, adopted)
    else:
        manifest = publish_metadata(ws, pieces)
    writes.done()
    published = manifest.manifest.by_token()
    ledger.set_pieces([PieceRecord(t, p.request_key, p.png_sha256, p.image_cid, published[t].metadata_cid, "pinned")
                       for t, p in ((p.token_id, p) for p in pieces)])
    writes.done()
    ledger.record_imports(plan.source.text, {t.token_id: t.traits for t in plan.tokens})
    writes.done()
    if plan.contract and plan.chain_id is not None:
        network = ws.spec.chain.endpoint()[0]
        deployed = ledger.latest_deployment(plan.chain_id)
        if not ws.spec.chain.contract and (deployed is None or deployed.address != plan.contract):
            ledger.record_deployment(network.name, plan.chain_id, plan.contract, IMPORTED_TX, str(plan.owner))
            writes.done()
        kind, record = (("imported-token-uris", {"token_uris": {str(t): uri for t, uri in plan.token_uris.items()}})
                        if plan.token_uris else ("imported-base-uri", {"base_uri": plan.base_uri}))
        if not any(all(tx.get(k) == v for k, v in record.items()) for tx in ledger.chain_txs(kind)):
            ledger.record_chain_tx(kind, plan.chain_id, plan.contract, "", record)
            writes.done()
    ledger.finish_journal(journal)


def _batches(reads: Iterable[_Read]) -> Iterator[list[_Read]]:
    """`reads` in batches of at most BATCH_IMAGE_BYTES of images (at least one token) and of FIRST_BATCH tokens,
    doubling to TOKENS_PER_BATCH: a folder's reads run ahead in a worker while a batch is recorded, and nothing
    is recorded until the first batch is read, so a small first batch starts both sooner."""
    batch: list[_Read] = []
    size, limit = 0, FIRST_BATCH
    for read in reads:
        if batch and (len(batch) == limit or size + len(read.image) > BATCH_IMAGE_BYTES):
            yield batch
            batch, size, limit = [], 0, min(2 * limit, TOKENS_PER_BATCH)
        batch.append(read)
        size += len(read.image)
    if batch:
        yield batch


def _record_batch(ws: Workspace, batch: list[_Read], writes: _Writes) -> list[PinnedPiece]:
    """A batch's images and source documents stored (two syncs), its images pinned and verified (one backend batch,
    one ledger transaction for their rows): the pieces the manifest will name."""
    shas = ws.ledger.objects.put_many(blob for read in batch for blob in (read.image, read.token.metadata))
    writes.done()
    png_shas, source_shas = shas[0::2], shas[1::2]
    pin_pieces(ws.ledger, ws.backend, ws.profile,
               [PinItem(sha, lambda read=read: read.dag, "image", f"{ws.spec.symbol}-{read.token.token_id}.png")
                for read, sha in zip(batch, png_shas)], force=True)
    writes.done()
    return [PinnedPiece(t.token_id, t.attributes, png, t.image_cid, t.provenance, IMPORTED_KEY + png, source)
            for t, png, source in zip((read.token for read in batch), png_shas, source_shas)]


def _attributes(document: dict[str, Any]) -> list[Any]:
    attributes = document.get("attributes")
    return attributes if isinstance(attributes, list) else []


def _dag_blocks(root: CID, fetch: BlockFetcher) -> Iterator[Block]:
    """Every block under `root`, verified (a token's were read already; a directory's others are read now)."""
    for step in walk_dag(root, fetch):
        if isinstance(step, Unreadable):
            raise UserError(f"block {step.cid} under {root} is not retrievable intact from any source; pass "
                            "--gateway URL of a gateway that has it")
        yield step

