"""Recording an import, in numbered steps like a repair's: the journal opened (naming the source), then each step of
`STEPS` in turn, then the journal closed. Every step is idempotent, so a killed import is finished (and a changed
source's import updated) by importing again. Fetched DAGs are pinned as they are, under their own CIDs, whatever
the ledger holds for the same bytes (`force`): a healthy token keeps its CIDs byte for byte.

Tokens are recorded in batches of at most `TOKENS_PER_BATCH` tokens and `BATCH_IMAGE_BYTES` of images (objects at
two syncs per batch, pins in one backend batch and one ledger transaction), so memory holds one batch of images,
not the collection. Each durable write is a fault point of the kill tests (`import-write-N`, mintprep.base.faults).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from mintprep.base import fault_point
from mintprep.collection import PinnedPiece, build_manifest
from mintprep.guards import MAX_DOCUMENT_BYTES, MAX_IMPORTED_IMAGE_BYTES
from mintprep.commands.importing.tokens import BATCH_IMAGE_BYTES, FetchedDag, ImportPlan, TokenRead, require_minted
from mintprep.ipfs import CID, BlockFetcher, LocalBackend, ipfs_path
from mintprep.stages import (PinItem, Publication, pin_content, pin_pieces, publish_metadata, record_manifest,
                             record_verdicts_of)
from mintprep.state import IMPORTED_KEY, IMPORTED_TX, PieceRecord, Workspace

JOURNAL_KIND = "import"
# A batch's tokens are recorded at up to four syncs (objects, then blocks) and one pin transaction; a larger batch
# pays those fixed costs over more tokens, the byte bound keeps what memory holds small whatever the images weigh
# (a batch of 64 MiB images is one image).
TOKENS_PER_BATCH = 1024
FIRST_BATCH = 256
# Then the directories are pinned: walks over blocks already stored, where a large cache would only fill with images.
DIRECTORY_CACHE_BYTES = 8 * 1024 * 1024


class _Writes:
    """Counts durable writes; each is a fault point, `import-write-N` (base.faults: a test's kill)."""

    def __init__(self) -> None:
        self.count = 0

    def done(self) -> None:
        self.count += 1
        fault_point(f"import-write-{self.count}")


@dataclass
class Recording:
    """What the steps share: the import's workspace and plan, the reads still to record, and what earlier steps
    made."""

    ws: Workspace
    plan: ImportPlan
    reads: Iterable[TokenRead]
    fetch: BlockFetcher
    writes: _Writes = field(default_factory=_Writes)
    pieces: list[PinnedPiece] = field(default_factory=list)
    publication: Publication | None = None


def record(ws: Workspace, plan: ImportPlan, reads: Iterable[TokenRead], fetch: BlockFetcher) -> None:
    """The journal, every step of `STEPS` in order, then the journal closed."""
    ledger, recording = ws.ledger, Recording(ws, plan, reads, fetch)
    if isinstance(ws.backend, LocalBackend):  # each image and document is one file, its block a link to it
        ws.backend.store.copies = ledger.objects
    journal = ledger.open_journal(JOURNAL_KIND) or ledger.begin_journal(JOURNAL_KIND, {"source": plan.source.text})
    recording.writes.done()
    for step in STEPS:
        step.run(recording)
    ledger.finish_journal(journal)


# -- the steps -----------------------------------------------------------------------------------

def _step_tokens(rec: Recording) -> None:
    """Per batch of tokens: objects, pins (verified, by the pin stage); then every minted token must be among them."""
    for batch in _batches(rec.reads):
        rec.pieces += _record_batch(rec.ws, batch, rec.writes)
        rec.plan.blocks.clear()  # this batch's blocks are stored and pinned: read them from the backend from here on
    require_minted(rec.plan)  # read before, but a source may fail the second time: no manifest without a minted token


def _step_directories(rec: Recording) -> None:
    """The directories the tokens' URIs go through, pinned as fetched."""
    ws, plan = rec.ws, rec.plan
    plan.blocks.resize(DIRECTORY_CACHE_BYTES)
    pin = functools.partial(pin_content, ws.ledger, ws.backend, ws.profile, force=True)
    # Images named by a path (ipfs://<images dir>/<n>.png) resolve only while their directory is pinned too; a
    # per-token contract's metadata files are pinned each under its own CID (what tokenURI names).
    directories = {parsed[0] for parsed in (ipfs_path(t.image_uri) for t in plan.tokens) if parsed and parsed[1]}
    pins = [(d, "image-directory", f"{ws.spec.symbol}-image-directory") for d in sorted(directories, key=str)]
    if plan.metadata_root:
        pins.append((CID.parse(plan.metadata_root), "metadata", f"{ws.spec.symbol}-metadata"))
    # The directories collectors resolve token URIs through (each batch's), pinned whole: every shard and file.
    pins += [(CID.parse(root), "metadata", f"{ws.spec.symbol}-metadata-{i}") for i, root in enumerate(plan.uri_roots)]
    pins += [(CID.parse(str(t.metadata_cid)), "metadata-file", f"{ws.spec.symbol}-{t.token_id}.json")
             for t in plan.tokens if plan.token_uris and t.metadata_cid]
    # A stranger's directory may hold more than its tokens (a 10 GB video beside the images): pinned only within
    # what its tokens can need.
    bound = {"image-directory": MAX_IMPORTED_IMAGE_BYTES, "metadata": MAX_DOCUMENT_BYTES,
             "metadata-file": MAX_DOCUMENT_BYTES}
    for root, kind, name in pins:
        limit = bound[kind] * (1 if kind == "metadata-file" else len(plan.tokens) + 1)
        pin(content_sha256=f"imported:{root}",
            make_dag=lambda root=root, limit=limit: FetchedDag(root, rec.fetch, limit), kind=kind, name=name)
        rec.writes.done()


def _step_manifest(rec: Recording) -> None:
    """The source's own metadata directory adopted as published, or (a folder) a directory mintprep writes."""
    ws, plan, pieces = rec.ws, rec.plan, rec.pieces
    # Each token's document as stored by its batch: at hand, not read back from the object store.
    sources = {p.source_metadata_sha256: t.metadata for p, t in zip(pieces, plan.tokens) if p.source_metadata_sha256}
    if plan.metadata_root:
        cids = {t.token_id: str(t.metadata_cid) for t in plan.tokens}
        # A foreign directory holds no collection.json of mintprep's: its contractURI is not this manifest's to say
        # (empty: `check` leaves it alone until a repair publishes a directory mintprep wrote).
        adopted = replace(build_manifest(ws.spec, pieces, plan.metadata_root, cids, ws.profile.name, plan.token_suffix,
                                         sources),
                          contract_uri="")
        rec.publication = record_manifest(ws, adopted)
    else:
        rec.publication = publish_metadata(ws, pieces, suffix=plan.token_suffix if plan.uri_roots else None,
                                           documents=sources)
    rec.writes.done()


def _step_pieces(rec: Recording) -> None:
    """Each token's piece pointer: what it publishes."""
    assert rec.publication is not None
    published = rec.publication.manifest.by_token()
    rec.ws.ledger.set_pieces([PieceRecord(t, p.request_key, p.png_sha256, p.image_cid, published[t].metadata_cid,
                                          "pinned") for t, p in ((p.token_id, p) for p in rec.pieces)])
    rec.writes.done()


def _step_imports(rec: Recording) -> None:
    """The source and each token's traits, as its document carries them."""
    rec.ws.ledger.record_imports(rec.plan.source.text, {t.token_id: t.traits for t in rec.plan.tokens})
    rec.writes.done()


def _step_contract(rec: Recording) -> None:
    """A contract source's deployment (unless the config names a contract) and what its URIs were."""
    ws, plan, ledger = rec.ws, rec.plan, rec.ws.ledger
    if not plan.contract or plan.chain_id is None:
        return
    network = ws.spec.chain.endpoint()[0]
    deployed = ledger.latest_deployment(plan.chain_id)
    if not ws.spec.chain.contract and (deployed is None or deployed.address != plan.contract):
        ledger.record_deployment(network.name, plan.chain_id, plan.contract, IMPORTED_TX, str(plan.owner))
        rec.writes.done()
    kind, uris = (("imported-token-uris", {"token_uris": {str(t): uri for t, uri in plan.token_uris.items()}})
                  if plan.token_uris else ("imported-base-uri", {"base_uri": plan.base_uri}))
    if not any(all(tx.get(k) == v for k, v in uris.items()) for tx in ledger.chain_txs(kind)):
        ledger.record_chain_tx(kind, plan.chain_id, plan.contract, "", uris)
        rec.writes.done()


class RecordStep(NamedTuple):
    name: str
    run: Callable[[Recording], None]  # idempotent


STEPS: tuple[RecordStep, ...] = (
    RecordStep("tokens", _step_tokens),
    RecordStep("directories", _step_directories),
    RecordStep("manifest", _step_manifest),
    RecordStep("pieces", _step_pieces),
    RecordStep("imports", _step_imports),
    RecordStep("contract", _step_contract),
)


# -- batches -------------------------------------------------------------------------------------

def _batches(reads: Iterable[TokenRead]) -> Iterator[list[TokenRead]]:
    """`reads` in batches of at most BATCH_IMAGE_BYTES of images (at least one token) and of FIRST_BATCH tokens,
    doubling to TOKENS_PER_BATCH: a folder's reads run ahead in a worker while a batch is recorded, and nothing
    is recorded until the first batch is read, so a small first batch starts both sooner."""
    batch: list[TokenRead] = []
    size, limit = 0, FIRST_BATCH
    for read in reads:
        if batch and (len(batch) == limit or size + len(read.image) > BATCH_IMAGE_BYTES):
            yield batch
            batch, size, limit = [], 0, min(2 * limit, TOKENS_PER_BATCH)
        batch.append(read)
        size += len(read.image)
    if batch:
        yield batch



def _record_batch(ws: Workspace, batch: list[TokenRead], writes: _Writes) -> list[PinnedPiece]:
    """A batch's images and source documents stored (two syncs), its images pinned and verified (one backend batch,
    one ledger transaction for their rows): the pieces the manifest will name."""
    shas = ws.ledger.objects.put_many(blob for read in batch for blob in (read.image, read.token.metadata))
    writes.done()
    png_shas, source_shas = shas[0::2], shas[1::2]
    record_verdicts_of(ws.col, ws.ledger, dict(zip(png_shas, (read.image for read in batch))),
                       {sha: read.judgement for sha, read in zip(png_shas, batch) if read.judgement})  # judged once
    pin_pieces(ws.ledger, ws.backend, ws.profile,
               [PinItem(sha, lambda read=read: read.dag, "image", f"{ws.spec.symbol}-{read.token.token_id}.png")
                for read, sha in zip(batch, png_shas)], force=True)
    writes.done()
    return [PinnedPiece(t.token_id, t.attributes, png, t.image_cid, t.provenance, IMPORTED_KEY + png, source)
            for t, png, source in zip((read.token for read in batch), png_shas, source_shas)]
