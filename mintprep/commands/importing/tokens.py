"""What an import's readers yield and share: the source, the plan they fill, each token read and checked (with its
image, held only until its batch is recorded), and what a token's document says of its traits and provenance."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mintprep.base import UserError, sha256_hex, summarise_ids
from mintprep.ipfs import (CID, Block, BlockFetcher, DagImport, NetworkReads, Unreadable, VerifiedBlocks, walk_dag,
                           TooLarge, file_budget)
from mintprep.guards import MAX_IMPORTED_IMAGE_BYTES, GuardSettings, Judgement

if TYPE_CHECKING:  # a folder reader's worker imports this module, and needs no workspace
    from mintprep.state import Workspace


# Metadata keys that say how a piece was made; kept in its provenance (HashLips writes dna, edition, date).
PROVENANCE_KEYS = ("dna", "edition", "date", "seed", "prompt", "compiler")
# A batch's images are held to this many bytes while it is recorded (mintprep.commands.importing.recording).
BATCH_IMAGE_BYTES = 64 * 1024 * 1024
# Verified blocks kept once read: a batch's images, the next token's (up to the image cap) and directory nodes, so
# what a batch pins is not fetched twice; past it the oldest go (stored by then, or read from the source again).
BLOCK_CACHE_BYTES = 3 * BATCH_IMAGE_BYTES


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
    max_bytes: int = MAX_IMPORTED_IMAGE_BYTES  # what its walk may read (a directory: its tokens' share of it)

    @property
    def blocks(self) -> Iterator[Block]:
        return _dag_blocks(self.root, self.fetch, self.max_bytes)

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
class TokenRead:
    """A token read and checked, with its image: held only until its batch is recorded."""

    token: ImportedToken
    image: bytes
    dag: DagImport | FetchedDag
    document_blocks: dict[CID, bytes] = field(default_factory=dict)  # its metadata file's, as fetched (verified)
    judgement: Judgement | None = None  # the image judged from the reader's decode: recorded as its verdict


@dataclass(frozen=True)
class Judging:
    """How the collection judges an image (its guards, the upscale its images carry): what a reader judges each
    image by as it decodes it; `judged`, the images the ledger already holds a verdict for under these settings
    (png sha256), which it does not judge again (an import run again reads every token again)."""

    guards: GuardSettings
    upscale: int = 1
    judged: frozenset[str] = frozenset()

    @classmethod
    def of(cls, ws: Workspace) -> Judging:
        from mintprep.stages import settings_key

        return cls(ws.spec.guards, ws.spec.generator.upscale, ws.ledger.judged(settings_key(ws.col)))

    def wants(self, image: bytes) -> bool:
        return not self.judged or sha256_hex(image) not in self.judged  # a first import hashes nothing here


@dataclass
class ImportPlan:
    source: Source
    metadata_root: str | None = None
    base_uri: str | None = None
    contract: str | None = None
    owner: str | None = None
    chain_id: int | None = None
    family: str | None = None  # the contract's family (mintprep.chain.profile)
    profile: dict[str, Any] | None = None  # its roles, and where they were read from (Profile.to_json)
    uri_roots: list[str] = field(default_factory=list)  # directories token URIs resolve through (thirdweb batches)
    token_suffix: str = ".json"  # what follows the id in the contract's token URIs
    token_uris: dict[int, str] = field(default_factory=dict)  # per-token-URI contracts: minted id -> tokenURI
    minted: list[int] = field(default_factory=list)
    tokens: list[ImportedToken] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)  # token id -> why it was not imported (left to `run`)
    unserved: dict[int, str] = field(default_factory=dict)  # minted ids whose tokenURI the contract cannot answer
    blocks: VerifiedBlocks = field(default_factory=lambda: VerifiedBlocks(BLOCK_CACHE_BYTES), repr=False)
    listings: dict[CID, dict[str, CID]] = field(default_factory=dict, repr=False)  # directories, listed once
    # Every metadata file's blocks as read: the metadata directory pinned at the end is walked from these, not
    # fetched again one block after another (400 round trips for 400 tokens, measured).
    document_blocks: dict[CID, bytes] = field(default_factory=dict, repr=False)
    network: NetworkReads = field(default_factory=NetworkReads, repr=False)  # shared with a scratch plan

    def to_json(self) -> dict[str, Any]:
        return {"source": {"kind": self.source.kind, "text": self.source.text}, "metadata_root": self.metadata_root,
                "base_uri": self.base_uri, "contract": self.contract, "family": self.family, "profile": self.profile,
                "minted": self.minted,
                "imported": [t.to_json() for t in self.tokens],
                "skipped": {str(t): why for t, why in sorted(self.skipped.items())}}


def require_minted(plan: ImportPlan) -> None:
    """Every minted token was read: a collection adopted without one would break a token someone bought."""
    read = {token.token_id for token in plan.tokens}  # once: built per minted id, it was quadratic at 10,000
    lacking = sorted(t for t in plan.minted if t not in read and t not in plan.unserved)
    if lacking:
        raise UserError(f"{plan.source.text}: minted token(s) {summarise_ids(lacking)} could not be imported ("
                        + "; ".join(plan.skipped.get(t, "beyond size") for t in lacking[:3]) + ")")


def document_traits(document: dict[str, Any]) -> list[tuple[str, str]]:
    attributes = document.get("attributes")
    if not isinstance(attributes, list):
        return []
    return [(str(a["trait_type"]), str(a["value"])) for a in attributes
            if isinstance(a, dict) and "trait_type" in a and "value" in a]


def document_provenance(document: dict[str, Any], source: Source) -> dict[str, Any]:
    carried = {key: document[key] for key in PROVENANCE_KEYS if key in document}
    return {"source": "imported", "from": source.text, **carried}


def document_attributes(document: dict[str, Any]) -> list[Any]:
    attributes = document.get("attributes")
    return attributes if isinstance(attributes, list) else []


def _dag_blocks(root: CID, fetch: BlockFetcher, max_bytes: int) -> Iterator[Block]:
    """Every block under `root`, verified (a token's were read already; a directory's others are read now), within
    `max_bytes` (and a block per KiB of them)."""
    try:
        for step in walk_dag(root, fetch, file_budget(max_bytes, f"the DAG under {root}")):
            if isinstance(step, Unreadable):
                raise UserError(f"block {step.cid} under {root} is not retrievable intact from any source; pass "
                                "--gateway URL of a gateway that has it")
            yield step
    except TooLarge as exc:
        raise UserError(f"{exc}: more than its tokens need; not pinned") from None
