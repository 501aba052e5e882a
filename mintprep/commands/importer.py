"""`mintprep import`: adopt a collection made elsewhere, so audit, repair, status and the page work on it.

The source is a contract address (its baseURI and minted ids read over RPC), an `ipfs://` metadata root, or
a local folder of images and metadata. Everything fetched from IPFS is verified block by block against its
CID (a gateway is not trusted), the blocks are pinned on the collection's backend under their own CIDs (a
healthy token keeps its CIDs byte for byte), and the ledger records each token as an imported piece with
the traits and provenance its metadata carries.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from mintprep.collection.config import Collection
from mintprep.base.errors import UserError
from mintprep.base.hashing import sha256_hex
from mintprep.ipfs.cid import CID
from mintprep.ipfs.dagpb import child_links
from mintprep.ipfs.reader import CorruptBlock, NotUnixFS, fetch_verified, list_directory, read_file
from mintprep.ipfs.unixfs import Block, DagImport, import_bytes
from mintprep.ipfs.uri import ipfs_path, resolve
from mintprep.ipfs.verify import BlockFetcher, BlockNotFound
from mintprep.state.ledger import IMPORTED_KEY, IMPORTED_TX, Ledger, PieceRecord
from mintprep.collection.manifest import PinnedPiece, build_manifest
from mintprep.commands.run import publish_metadata, record_manifest
from mintprep.base.progress import NoProgress, ProgressSink
from mintprep.stages.pin import PinItem, pin_pieces
from mintprep.state.workspace import Workspace

ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
UNREADABLE = (BlockNotFound, CorruptBlock, NotUnixFS)
# Metadata keys that say how a piece was made; kept in its provenance (HashLips writes dna, edition, date).
PROVENANCE_KEYS = ("dna", "edition", "date", "seed", "prompt", "compiler")
OBJECTS_PER_SYNC = 256  # tokens whose image and metadata are stored at one sync


@dataclass(frozen=True)
class Source:
    kind: Literal["contract", "ipfs", "folder"]
    text: str


@dataclass(frozen=True)
class FetchedDag:
    """Blocks read (and verified) from elsewhere, pinned as they are: what a backend's `pin_dag` needs."""

    root: CID
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class ImportedToken:
    token_id: int
    metadata: bytes  # the published file (folder sources: with `image` made an ipfs:// URI)
    metadata_cid: str | None  # in the published directory; None for a folder source
    image_uri: str
    image_cid: str
    image: bytes
    traits: list[tuple[str, str]]
    provenance: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "image": self.image_uri, "image_cid": self.image_cid,
                "metadata_cid": self.metadata_cid, "traits": dict(self.traits), "provenance": self.provenance}


@dataclass
class ImportPlan:
    source: Source
    metadata_root: str | None = None
    base_uri: str | None = None
    contract: str | None = None
    owner: str | None = None
    chain_id: int | None = None
    minted: list[int] = field(default_factory=list)
    tokens: list[ImportedToken] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)  # token id -> why it was not imported (left to `run`)
    blocks: dict[CID, bytes] = field(default_factory=dict, repr=False)  # every verified block read
    listings: dict[CID, dict[str, CID]] = field(default_factory=dict, repr=False)  # directories, listed once

    def to_json(self) -> dict[str, Any]:
        return {"source": {"kind": self.source.kind, "text": self.source.text}, "metadata_root": self.metadata_root,
                "base_uri": self.base_uri, "contract": self.contract, "minted": self.minted,
                "imported": [t.to_json() for t in self.tokens],
                "skipped": {str(t): why for t, why in sorted(self.skipped.items())}}


def parse_source(text: str, base_dir: Path) -> Source:
    if ADDRESS.match(text):
        return Source("contract", text)
    if ipfs_path(text) is not None:
        return Source("ipfs", text)
    folder = (base_dir / text).resolve()
    if folder.is_dir():
        return Source("folder", str(folder))
    raise UserError(f"--from {text!r}: expected a contract address (0x…), an ipfs:// metadata root, or a folder "
                    "of images and metadata")


def import_collection(col: Collection, source_text: str, *, gateways: tuple[str, ...] = (), dry_run: bool = False,
                      progress: ProgressSink | None = None) -> ImportPlan:
    """Read and verify everything the source publishes; unless `dry_run`, pin it and record it in the ledger."""
    source = parse_source(source_text, col.base_dir)
    with _workspace(col, dry_run, progress) as ws:
        if ws.ledger.current_manifest() is not None and not _interrupted(ws.ledger, source):
            raise UserError(f"{col.path}: this collection already has pinned metadata; import adopts a collection "
                            "into a fresh ledger only")
        if col.spec.chain.contract and source.kind == "contract" \
                and col.spec.chain.contract.lower() != source.text.lower():
            raise UserError(f"--from {source.text}: chain.contract in {col.path.name} names another contract "
                            f"({col.spec.chain.contract})")
        plan = ImportPlan(source)
        fetch = _block_reader(ws, gateways, plan.blocks)
        if source.kind == "contract":
            _read_contract(ws, plan)
        if source.kind == "folder":
            _read_folder(ws, Path(source.text), plan)
        else:
            _read_ipfs_root(ws, plan.base_uri or source.text, plan, fetch)
        lacking = sorted(t for t in plan.minted if t not in {tok.token_id for tok in plan.tokens})
        if lacking:
            raise UserError(f"{source.text}: minted token(s) {', '.join(map(str, lacking))} could not be imported ("
                            + "; ".join(plan.skipped.get(t, "beyond size") for t in lacking[:3]) + ")")
        if not dry_run:
            _record(ws, plan, fetch)
    return plan


@contextmanager
def _workspace(col: Collection, dry_run: bool, progress: ProgressSink | None) -> Iterator[Workspace]:
    """The collection's workspace; for a dry run of a collection without a ledger, a throwaway ledger (a dry run
    writes nothing beside the collection file) over the collection's own block store."""
    if dry_run and not (col.state_dir / "state.db").exists():
        with tempfile.TemporaryDirectory(prefix="mintprep-import-") as scratch, Ledger.open(Path(scratch)) as ledger:
            workspace = Workspace(col, ledger, progress or NoProgress())
            yield workspace
        return
    with Workspace.open(col, readonly=dry_run, progress=progress) as workspace:
        yield workspace


def _interrupted(ledger: Ledger, source: Source) -> bool:
    """An import of this same source that stopped before its last step (the pieces): running it again finishes it."""
    return ledger.import_sources() == {source.text} and not ledger.pieces()


# -- reading -------------------------------------------------------------------------------------

def _block_reader(ws: Workspace, gateways: tuple[str, ...], seen: dict[CID, bytes]) -> BlockFetcher:
    """Blocks from the collection's own backend, then each gateway; only bytes matching their CID are kept."""
    from mintprep.ipfs.gateway import TrustlessGateway

    fetchers: list[Callable[[CID], bytes | None]] = [ws.backend.fetch_block]
    fetchers += [TrustlessGateway(url).fetch_block for url in gateways]

    def fetch(cid: CID) -> bytes | None:
        if cid in seen:
            return seen[cid]
        for one in fetchers:
            try:
                data = fetch_verified(cid, one)
            except (BlockNotFound, CorruptBlock):
                continue
            seen[cid] = data
            return data
        return None

    return fetch


def _read_contract(ws: Workspace, plan: ImportPlan) -> None:
    from mintprep.chain.artifact import load_artifact
    from mintprep.chain.rpc import RPC_FAILURES, connect
    from mintprep.net.urls import redact_url

    network, url = ws.spec.chain.endpoint()
    w3 = connect(url)
    drop = w3.eth.contract(address=w3.to_checksum_address(plan.source.text), abi=load_artifact().abi)
    try:
        if not w3.eth.get_code(drop.address):
            raise UserError(f"--from {plan.source.text}: no contract at that address on {network.name}")
        plan.base_uri = drop.functions.baseURI().call()
        total = drop.functions.totalSupply().call()
        plan.owner = drop.functions.owner().call()
    except RPC_FAILURES as exc:
        raise UserError(f"--from {plan.source.text}: cannot read baseURI/totalSupply/owner through "
                        f"{redact_url(url)} ({type(exc).__name__})") from None
    plan.contract, plan.chain_id = drop.address, network.chain_id
    plan.minted = list(range(1, total + 1))  # ERC721A-style sequential ids from 1, as MintprepDrop mints
    if ipfs_path(plan.base_uri) is None:
        raise UserError(f"--from {plan.source.text}: its base URI {plan.base_uri!r} is not an IPFS address; "
                        "import reads metadata trustlessly from IPFS only")


def _read_ipfs_root(ws: Workspace, uri: str, plan: ImportPlan, fetch: BlockFetcher) -> None:
    try:
        root = resolve(uri, fetch)
        listing = list_directory(root, fetch)
    except UNREADABLE as exc:
        raise UserError(f"{uri}: the metadata directory cannot be read intact ({exc}); pass --gateway URL of a "
                        "gateway that has it") from None
    plan.metadata_root = str(root)
    plan.base_uri = plan.base_uri or f"ipfs://{root}/"
    with ws.progress.task("import", ws.spec.size) as advance:
        for token_id in range(1, ws.spec.size + 1):
            name = next((n for n in (f"{token_id}.json", str(token_id)) if n in listing), None)
            if name is None:
                plan.skipped[token_id] = f"no {token_id}.json in {root}"
            else:
                _read_token(token_id, listing[name], plan, fetch)
            advance()


def _read_token(token_id: int, metadata_cid: CID, plan: ImportPlan, fetch: BlockFetcher) -> None:
    try:
        data = read_file(metadata_cid, fetch)
    except UNREADABLE as exc:
        plan.skipped[token_id] = f"metadata {metadata_cid} unreadable: {exc}"
        return
    document = _document(data, token_id, plan)
    if document is None:
        return
    try:
        image_cid = resolve(document["image"], fetch, plan.listings)
        image = read_file(image_cid, fetch) if image_cid else None
    except UNREADABLE as exc:
        plan.skipped[token_id] = f"image {document['image']} unreadable: {exc}"
        return
    if image_cid is None or image is None:
        plan.skipped[token_id] = f"image {document['image']!r} is not an IPFS address"
        return
    plan.tokens.append(ImportedToken(token_id, data, str(metadata_cid), document["image"], str(image_cid), image,
                                     _traits(document), _provenance(document, plan.source)))


def _read_folder(ws: Workspace, folder: Path, plan: ImportPlan) -> None:
    """`<id>.json` (or `<id>`) per token, its `image` a path relative to the folder (or to a json/ subfolder)."""
    meta_dir = folder / "json" if (folder / "json").is_dir() else folder
    with ws.progress.task("import", ws.spec.size) as advance:
        for token_id in range(1, ws.spec.size + 1):
            path = next((p for p in (meta_dir / f"{token_id}.json", meta_dir / str(token_id)) if p.is_file()), None)
            advance()
            if path is None:
                plan.skipped[token_id] = f"no {token_id}.json in {meta_dir}"
                continue
            document = _document(path.read_bytes(), token_id, plan)
            if document is None:
                continue
            image_path = _local_image(folder, document["image"], token_id)
            if image_path is None:
                plan.skipped[token_id] = f"image {document['image']!r} is no file under {folder}"
                continue
            image = image_path.read_bytes()
            image_cid = str(import_bytes(image, ws.profile).root)
            document = dict(document, image=f"ipfs://{image_cid}")  # the folder's path means nothing once pinned
            plan.tokens.append(ImportedToken(token_id, json.dumps(document, indent=2, ensure_ascii=False).encode(),
                                             None, f"ipfs://{image_cid}", image_cid, image, _traits(document),
                                             _provenance(document, plan.source)))


def _local_image(folder: Path, reference: str, token_id: int) -> Path | None:
    name = reference.rsplit("/", 1)[-1] if "://" in reference else reference
    for base in (folder, folder / "images"):
        candidate = (base / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(folder):
            return candidate
    return None


def _document(data: bytes, token_id: int, plan: ImportPlan) -> dict[str, Any] | None:
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        plan.skipped[token_id] = f"metadata is not JSON ({exc})"
        return None
    if not isinstance(document, dict) or not isinstance(document.get("image"), str):
        plan.skipped[token_id] = "metadata has no `image` string"
        return None
    return document


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

def _record(ws: Workspace, plan: ImportPlan, fetch: BlockFetcher) -> None:
    """Objects first, then pins (verified), then ledger rows: a killed import leaves nothing a rerun trips on.

    Objects and pins go a batch at a time (a sync per batch, not per file), pin rows as `pin_pieces` writes them.
    The import rows come first and the pieces last: a ledger with import rows and no pieces is an import that was
    stopped, which running it again finishes (`_interrupted`)."""
    ledger, backend = ws.ledger, ws.backend
    ledger.record_imports(plan.source.text, {t.token_id: t.traits for t in plan.tokens})
    for start in range(0, len(plan.tokens), OBJECTS_PER_SYNC):
        ledger.objects.put_many(blob for token in plan.tokens[start:start + OBJECTS_PER_SYNC]
                                for blob in (token.image, token.metadata))

    def dag(token: ImportedToken) -> DagImport | FetchedDag:  # FetchedDag: the blocks as read, pinned as they are
        image_cid = CID.parse(token.image_cid)
        return (FetchedDag(image_cid, _dag_blocks(image_cid, fetch)) if plan.metadata_root
                else import_bytes(token.image, ws.profile))

    items = [PinItem(sha256_hex(token.image), lambda token=token: dag(token), "image",
                     f"{ws.spec.symbol}-{token.token_id}.png") for token in plan.tokens]
    with ws.progress.task("pin", len(items)) as advance:
        pin_pieces(ledger, backend, ws.profile, items, advance)
    pieces = [PinnedPiece(token.token_id, _attributes(token), item.content_sha256, token.image_cid, token.provenance,
                          IMPORTED_KEY + item.content_sha256, sha256_hex(token.metadata))
              for token, item in zip(plan.tokens, items)]
    if plan.metadata_root:
        # Images named by a path (ipfs://<images dir>/<n>.png) resolve only while their directory is pinned too.
        directories = {parsed[0] for parsed in (ipfs_path(t.image_uri) for t in plan.tokens) if parsed and parsed[1]}
        for root, kind in [*((d, "image-directory") for d in sorted(directories, key=str)),
                           (CID.parse(plan.metadata_root), "metadata")]:
            receipt = backend.pin_dag(FetchedDag(root, _dag_blocks(root, fetch)), name=f"{ws.spec.symbol}-{kind}")
            ledger.record_pin(cid=receipt.cid, backend=backend.ledger_key, content_sha256=f"imported:{receipt.cid}",
                              profile=ws.profile.name, kind=kind, name=receipt.name, remote_id=receipt.remote_id)
        cids = {t.token_id: str(t.metadata_cid) for t in plan.tokens}
        # A foreign directory holds no collection.json of mintprep's: its contractURI is not this manifest's to say
        # (empty: `check` leaves it alone until a repair publishes a directory mintprep wrote).
        adopted = replace(build_manifest(ws.spec, pieces, plan.metadata_root, cids, ws.profile.name), contract_uri="")
        manifest = record_manifest(ws, adopted)
    else:
        manifest = publish_metadata(ws, pieces)
    if plan.contract and plan.chain_id is not None:
        network = ws.spec.chain.endpoint()[0]
        if not ws.spec.chain.contract:
            ledger.record_deployment(network.name, plan.chain_id, plan.contract, IMPORTED_TX, str(plan.owner))
        ledger.record_chain_tx("imported-base-uri", plan.chain_id, plan.contract, "", {"base_uri": plan.base_uri})
    published = manifest.manifest.by_token()
    ledger.set_pieces([PieceRecord(t, p.request_key, p.png_sha256, p.image_cid, published[t].metadata_cid, "pinned")
                       for t, p in ((p.token_id, p) for p in pieces)])


def _attributes(token: ImportedToken) -> list[dict[str, Any]]:
    document = json.loads(token.metadata)
    attributes = document.get("attributes")
    return attributes if isinstance(attributes, list) else []


def _dag_blocks(root: CID, fetch: BlockFetcher) -> tuple[Block, ...]:
    """Every block under `root`, verified (most were read already; a directory's other files are read now)."""
    found, stack, seen = [], [root], set()
    while stack:
        cid = stack.pop()
        if cid in seen:
            continue
        seen.add(cid)
        data = fetch(cid)
        if data is None:
            raise UserError(f"block {cid} under {root} is not retrievable intact from any source; pass --gateway "
                            "URL of a gateway that has it")
        found.append(Block(cid, data))
        stack.extend(link.cid for link in child_links(cid, data))
    return tuple(found)

