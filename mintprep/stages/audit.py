"""The audit stage: walk what is already pinned and published back from the ledger and say what is broken; `audit`
reports it (mintprep.commands.audit) and `audit --repair` plans from it (mintprep.commands.repair).

Read-only by construction: the ledger is opened read-only, blocks are only fetched, the page is only read,
the chain is only called. Every image is judged on the bytes the backend serves (each block hashed against
its CID), decoded and put through today's pixel guards — not on a local copy, which may be the healthy one.

Live state is the truth: when a contract is known, every token id's URI as collectors resolve it (tokenURI of
a minted id, the base URI + id of one still to mint) is read through its profile (mintprep.chain.profile);
where it names another document than the ledger's newest manifest, that live document and its image are
fetched (the collection's store first, then each gateway) and judged (`where: live`), and the ledger's own
problems for that token are reported apart (`where: not-yet-published`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from mintprep.collection import (COLLECTION_METADATA_NAME, Collection, Manifest, base_uri_for, metadata_errors,
                                 companion, provenance_hash)
from mintprep.base import UserError, sha256_hex
from mintprep.ipfs import (CID, BlockFetcher, BlockNotFound, PinBackend, Unreadable, content_sha256, list_directory,
                           read_file, resolve, verify_dag)
from mintprep.state import Ledger, ManifestRecord, PieceRecord, Workspace, published_ids, withholding, VerdictRow
from mintprep.guards import MAX_DOCUMENT_BYTES, MAX_IMPORTED_IMAGE_BYTES, pixel_warnings
from mintprep.stages.screen import settings_key, verdict_row
from mintprep.stages.withheld import publication_backend

if TYPE_CHECKING:
    from mintprep.chain import LiveState

VERDICTS_PER_WRITE = 256  # verdicts judged here are kept (mintprep.state.verdict_cache) a batch per transaction

ProblemKind = Literal[
    "image-unretrievable", "image-corrupt", "image-broken", "near-duplicate",
    "metadata-unretrievable", "metadata-invalid", "metadata-wrong-image", "metadata-root-mismatch",
    "manifest-inconsistent", "page-stale", "chain-base-uri-stale", "chain-mismatch", "object-corrupt",
    "repair-interrupted",
]
IMAGE_KINDS: frozenset[str] = frozenset({"image-unretrievable", "image-corrupt", "image-broken"})
# Problems of the art itself: only a new image cures them (pinning the same CID again does not).
ART_KINDS: frozenset[str] = frozenset({"image-broken", "near-duplicate"})
# Problems a repair replaces the token's image for: the image ones, and the later member of a near-duplicate pair.
REPLACE_KINDS: frozenset[str] = IMAGE_KINDS | ART_KINDS
# published: the ledger's view, which is also what collectors see (or no contract is known);
# live: what the contract serves, where it differs from the ledger; not-yet-published: the ledger's newest
# state for a token whose live document is another.
Where = Literal["published", "live", "not-yet-published"]


@dataclass(frozen=True)
class Problem:
    token_id: int | None  # None: the problem is collection-wide (metadata root, page, chain)
    kind: ProblemKind
    evidence: dict[str, Any]
    where: Where = "published"

    def to_json(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "kind": self.kind, "evidence": self.evidence, "where": self.where}


@dataclass
class AuditReport:
    problems: list[Problem] = field(default_factory=list)
    minted: list[int] = field(default_factory=list)  # token ids sold: minted and held by another than the owner
    family: str | None = None  # the contract's family (mintprep.chain.profile); None: no contract read
    base_uri_on_chain: str | None = None  # None: no contract, or not read
    checked: dict[str, Any] = field(default_factory=dict)  # what was looked at: counts and sources
    # Facts about healthy images worth a look (banded, posterized): reported, never a problem (exit code unchanged).
    warnings: list[dict[str, Any]] = field(default_factory=list)
    # Bytes of images that decoded but failed the guards, for the HTML report's thumbnails (not in the JSON).
    images: dict[int, bytes] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def tokens_with(self, kinds: Iterable[str]) -> dict[int, list[Problem]]:
        wanted = set(kinds)
        found: dict[int, list[Problem]] = {}
        for problem in self.problems:
            if problem.token_id is not None and problem.kind in wanted:
                found.setdefault(problem.token_id, []).append(problem)
        return found

    def add(self, token_id: int | None, kind: ProblemKind, where: Where = "published", **evidence: Any) -> None:
        self.problems.append(Problem(token_id, kind, evidence, where))

    @property
    def live_broken(self) -> list[int]:
        """Token ids whose image, as collectors resolve it now, is broken or unretrievable."""
        return sorted({p.token_id for p in self.problems if p.token_id is not None and p.kind in IMAGE_KINDS
                       and p.where != "not-yet-published"})

    def to_json(self) -> dict[str, Any]:
        minted = set(self.minted)
        return {
            "ok": self.ok,
            "exit_code": self.exit_code,
            "problems": [dict(p.to_json(), minted=p.token_id in minted) for p in self.problems],
            "live_broken": self.live_broken,
            "not_yet_published": sorted({p.token_id for p in self.problems if p.where == "not-yet-published"}),
            "family": self.family,
            "minted": self.minted,
            "base_uri_on_chain": self.base_uri_on_chain,
            "checked": self.checked,
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class BlockSource:
    """A place content is recorded as retrievable from: the pinning backend, or a trustless gateway."""

    name: str
    fetch_block: BlockFetcher
    pins: frozenset[str] | None  # the source's pin set; None for gateways, which serve but do not pin


def audit_workspace(ws: Workspace, *, gateways: Sequence[str] = (), check_chain: bool = True) -> AuditReport:
    """Check every pinned image and metadata file, the manifest, the page and (when deployed) the chain, inside a
    command's workspace (`audit` opens one read-only; repair audits before and after in its own)."""
    report = AuditReport()
    col, ledger = ws.col, ws.ledger
    record = ledger.current_manifest()
    if record is None:
        raise UserError(f"{col.path}: nothing pinned yet (no manifest in the ledger); run `mintprep run`, "
                        "or `mintprep import` for a collection made elsewhere")
    # First: which tokens are minted decides what must be published.
    live = audit_chain(ws, report) if check_chain else None
    journal = ledger.open_journal("repair")
    if journal is not None:
        report.add(None, "repair-interrupted", step=journal.step,
                   reason="a repair stopped midway; `mintprep audit --repair` finishes it")
    sources = block_sources(ws, gateways)
    # A hidden drop's images, metadata and manifest stay in the local store until the reveal: judged there, asked
    # of no one (no gateway may have them yet).
    published_sources = [backend_source(publication_backend(ws))] if withholding(col, ledger) else sources
    report.checked["sources"] = [s.name for s in published_sources]
    pieces = ledger.pieces()
    audit_manifest(record, pieces, published_sources[0], report)
    audit_published(ws, record.manifest, report)
    intact = audit_objects(ws, record.manifest, report)
    audit_images(col, record.manifest, pieces, published_sources, report, ledger)
    audit_duplicates(ws, record.manifest, report, intact, pieces)
    audit_metadata(record, pieces, published_sources, report)
    audit_page(col, ledger, record, report)
    if live is not None:
        audit_live(record.manifest, live, sources, col, report)
    return report


def block_sources(ws: Workspace, gateways: Sequence[str]) -> list[BlockSource]:
    from mintprep.ipfs import TrustlessGateway

    return [backend_source(ws.backend), *(BlockSource(url, TrustlessGateway(url).fetch_block, None) for url in gateways)]


def backend_source(backend: PinBackend) -> BlockSource:
    return BlockSource(backend.name, backend.fetch_block, frozenset(backend.list_pins()))


# -- manifest ------------------------------------------------------------------------------------

def audit_manifest(record: ManifestRecord, pieces: dict[int, PieceRecord], source: BlockSource,
                   report: AuditReport) -> None:
    """The ledger, the manifest object and the pinned manifest tell one story; the provenance hash adds up."""
    manifest = record.manifest
    tokens = manifest.tokens
    recomputed = provenance_hash([t.png_sha256 for t in tokens])
    if recomputed != manifest.provenance_hash or recomputed != record.provenance_hash:
        report.add(None, "manifest-inconsistent", field="provenance_hash", recomputed=recomputed,
                   manifest=manifest.provenance_hash, ledger=record.provenance_hash)
    if manifest.metadata_root != record.metadata_root:
        report.add(None, "metadata-root-mismatch", ledger=record.metadata_root, manifest=manifest.metadata_root)
    try:
        pinned = read_file(record.manifest_cid, source.fetch_block)
        if sha256_hex(pinned) != record.manifest_sha256:
            report.add(None, "manifest-inconsistent", field="pinned manifest", cid=record.manifest_cid,
                       reason="the pinned manifest is not the ledger's manifest")
    except Unreadable as exc:
        report.add(None, "manifest-inconsistent", field="pinned manifest", cid=record.manifest_cid,
                   source=source.name, reason=f"not retrievable intact: {exc}")
    listed = {t.token_id for t in tokens}
    for token in tokens:
        piece = pieces.get(token.token_id)
        ledger_view = (piece.image_cid, piece.png_sha256) if piece else None
        if ledger_view != (token.image_cid, token.png_sha256):
            report.add(token.token_id, "manifest-inconsistent", field="tokens",
                       manifest={"image_cid": token.image_cid, "png_sha256": token.png_sha256},
                       ledger=None if piece is None else {"image_cid": piece.image_cid, "png_sha256": piece.png_sha256})
    for token_id, piece in pieces.items():
        if piece.status == "pinned" and token_id not in listed:
            report.add(token_id, "manifest-inconsistent", field="tokens", reason="pinned in the ledger, absent from "
                       "the manifest", image_cid=piece.image_cid)
    report.checked["tokens"] = len(tokens)


def audit_published(ws: Workspace, manifest: Manifest, report: AuditReport) -> None:
    """Every token ever published or minted is still in the manifest (and so in the metadata directory)."""
    listed = {t.token_id for t in manifest.tokens}
    for token_id in sorted(published_ids(ws.ledger, ws.spec.size, report.minted) - listed):
        report.add(token_id, "metadata-unretrievable", cid=manifest.metadata_root,
                   reason=f"token {token_id} was " + ("minted" if token_id in report.minted else "published")
                   + f" but the manifest and metadata directory lack it: tokenURI({token_id}) resolves to nothing")


def audit_objects(ws: Workspace, manifest: Manifest, report: AuditReport) -> set[int]:
    """The local copies repair and `run` rely on are whole (a garbled file in objects/ is named, not trusted);
    returns the tokens whose copies are."""
    intact = set()
    for token in manifest.tokens:
        if ws.ledger.objects.intact(token.png_sha256):
            intact.add(token.token_id)
        else:
            report.add(token.token_id, "object-corrupt", sha256=token.png_sha256, cid=token.image_cid,
                       path=str(ws.ledger.objects.path(token.png_sha256)),
                       reason="the local copy is absent or no longer hashes to its name")
    return intact


# -- images --------------------------------------------------------------------------------------

def audit_images(col: Collection, manifest: Manifest, pieces: dict[int, PieceRecord],
                 sources: list[BlockSource], report: AuditReport, ledger: Ledger | None = None) -> None:
    key = settings_key(col)
    quiet = ledger.passed((t.png_sha256 for t in manifest.tokens), key) if ledger is not None else set()
    fresh: list[VerdictRow] = []
    for token in manifest.tokens:
        token_id = token.token_id
        piece = pieces.get(token_id)
        cid = CID.parse(piece.image_cid if piece and piece.image_cid else token.image_cid)
        data = fetch_content(cid, sources, report, token_id, kind_prefix="image")
        if data is not None:
            fresh += _judge_image(col, token_id, cid, data, report, ledger=ledger, quiet=quiet)
        if ledger is not None and len(fresh) >= VERDICTS_PER_WRITE:
            ledger.keep_verdicts(fresh)
            fresh = []
    if ledger is not None:
        ledger.keep_verdicts(fresh)
        if ledger.verdicts_not_kept:
            report.checked["verdict_cache"] = ledger.verdicts_not_kept
    report.checked["images"] = len(manifest.tokens)


def _judge_image(col: Collection, token_id: int, cid: CID, data: bytes, report: AuditReport,
                 where: Where = "published", ledger: Ledger | None = None,
                 quiet: set[str] = frozenset()) -> list[VerdictRow]:
    """Today's pixel guards on the bytes served; `image-broken` naming the guard when they fail, a warning for
    each property they report. Returns the verdict when it was judged here (for the caller to keep).

    Bytes with a verdict under today's guard settings (the ledger's: the validate stage or `import` judged them;
    or the verdict cache's: an earlier audit or review did) keep it: the guards are a pure function of the bytes
    and the settings, and judging them again was most of an audit. `quiet`: the bytes the manifest names that
    passed with nothing to report, read in bulk."""
    served, cid_text = content_sha256(cid, data), str(cid)
    if served in quiet:
        return []
    stored = ledger.verdict(served, settings_key(col)) if ledger is not None else None
    fresh = []
    if stored is None:
        try:
            row = verdict_row(col, served, data, f"token {token_id} image {cid_text}")
        except UserError as exc:
            report.add(token_id, "image-broken", where, cid=cid_text, guard="undecodable", reasons=[str(exc)],
                       metrics={})
            return []
        stored, fresh = (row.ok, row.reasons, row.metrics), [row]
    ok, reasons, facts = stored
    if not ok:
        report.add(token_id, "image-broken", where, cid=cid_text, guard=facts["guard"], reasons=reasons,
                   decided_by=facts["decided_by"], metrics=facts["pixels"])
        report.images[token_id] = data
    report.warnings += [{"token_id": token_id, "cid": cid_text, "where": where, **w}
                        for w in pixel_warnings(facts["pixels"], col.spec.guards)]
    return fresh


def audit_duplicates(ws: Workspace, manifest: Manifest, report: AuditReport, intact: set[int],
                     pieces: dict[int, PieceRecord]) -> None:
    """Near-duplicate pairs among the published images, decided as the validate stage decides them (one problem
    per pair, on the member a repair replaces: the later or unminted one). Judged on the local copies, which
    `audit_objects` has just checked hash to the manifest's sha256 (a garbled one is left out). `pieces`: the
    ledger's, as the audit read them."""
    from mintprep.stages.screen import judge

    broken = set(report.tokens_with(ART_KINDS))
    images = {t.token_id: t.png_sha256 for t in manifest.tokens if t.token_id not in broken and t.token_id in intact}
    pairs = [r for r in judge(ws.col, ws.ledger, images, minted=set(report.minted), excluded=broken, record=False,
                              pieces=pieces)
             if r.collides_with is not None]  # a pixel-guard failure: audit_images judged the served bytes already
    tokens = manifest.by_token() if pairs else {}
    for rejection in pairs:
        report.add(rejection.token_id, "near-duplicate", collides_with=rejection.collides_with,
                   cid=tokens[rejection.token_id].image_cid, reason=rejection.reason, metrics=rejection.metrics)
    report.checked["duplicates"] = len(images)


def fetch_content(root: CID, sources: list[BlockSource], report: AuditReport, token_id: int | None,
                  kind_prefix: Literal["image", "metadata"]) -> bytes | None:
    """The file's bytes, after checking it is pinned and intact on every source; None when no source has it.

    Reports `<prefix>-unretrievable` (not pinned there, or the root block is absent) or `image-corrupt`
    (a block that does not hash to its CID, blocks missing under the root, or not a UnixFS file).
    """
    cid = str(root)  # as pin sets and reports write it
    content: bytes | None = None
    for source in sources:
        if source.pins is not None and cid not in source.pins:
            report.add(token_id, f"{kind_prefix}-unretrievable", cid=cid, source=source.name,  # type: ignore[arg-type]
                       reason="not pinned there (its blocks may be garbage-collected at any time)")
            continue
        try:
            if content is None:
                content = read_file(root, source.fetch_block)
            elif not verify_dag(root, source.fetch_block).ok:
                raise BlockNotFound(cid)
        except Unreadable as exc:
            retrievable, evidence = _diagnose(cid, source, exc)
            kind = f"{kind_prefix}-unretrievable" if not retrievable or kind_prefix == "metadata" else "image-corrupt"
            report.add(token_id, kind, cid=cid, source=source.name, **evidence)  # type: ignore[arg-type]
    return content


def _diagnose(cid: str, source: BlockSource, exc: Exception) -> tuple[bool, dict[str, Any]]:
    """Whether the root is there at all, and every missing and corrupt block under it."""
    walk = verify_dag(cid, source.fetch_block)
    missing, corrupt = [str(c) for c in walk.missing], [str(c) for c in walk.corrupt]
    if str(CID.parse(cid)) in missing:
        return False, {"reason": "the root block is not there", "missing": missing}
    if walk.ok:  # every block hashes right, yet it is not a file: the CID names the wrong kind of node
        return True, {"reason": str(exc)}
    return True, {"reason": walk.describe(), "missing": missing, "corrupt": corrupt}


# -- metadata ------------------------------------------------------------------------------------

def audit_metadata(record: ManifestRecord, pieces: dict[int, PieceRecord], sources: list[BlockSource],
                   report: AuditReport) -> None:
    """The metadata directory the base URI names: one valid `<id>.json` per token, each naming its image."""
    root = record.metadata_root
    source = sources[0]
    if source.pins is not None and root not in source.pins:
        report.add(None, "metadata-unretrievable", cid=root, source=source.name, reason="metadata root not pinned")
    try:
        listing = list_directory(root, source.fetch_block)
    except Unreadable as exc:
        report.add(None, "metadata-unretrievable", cid=root, source=source.name, reason=f"directory unreadable: {exc}")
        return
    for other in sources[1:]:
        walk = verify_dag(root, other.fetch_block)
        if not walk.ok:
            report.add(None, "metadata-unretrievable", cid=root, source=other.name, reason=walk.describe())
    tokens = record.manifest.by_token()
    listings: dict[CID, dict[str, CID]] = {}  # image directories, listed once
    expected_names = {record.manifest.file_name(token_id) for token_id in tokens} | {COLLECTION_METADATA_NAME}
    unexpected = sorted(name for name in set(listing) - expected_names if companion(name) is None)
    if unexpected:
        report.add(None, "metadata-root-mismatch", cid=root, reason="entries for tokens the manifest does not list",
                   entries=unexpected)
    for token_id, token in sorted(tokens.items()):
        name = record.manifest.file_name(token_id)
        entry = listing.get(name)
        if entry is None:
            report.add(token_id, "metadata-unretrievable", cid=root, reason=f"{name} absent from the metadata directory")
            continue
        cid = entry.text
        if cid != token.metadata_cid:
            report.add(token_id, "metadata-root-mismatch", directory=cid, manifest=token.metadata_cid,
                       reason=f"{name} in the directory is not the file the manifest lists")
        data = _read_metadata(entry, source, report, token_id)
        if data is None:
            continue
        piece = pieces.get(token_id)
        expected_image = piece.image_cid if piece and piece.image_cid else token.image_cid
        expected_uri = f"ipfs://{expected_image}"
        errors, document = metadata_errors(data, well_formed=expected_uri)
        if errors:
            report.add(token_id, "metadata-invalid", cid=cid, errors=errors)
            continue
        # A URI naming the expected CID itself needs no walk (most do); a path under a directory is resolved.
        if document["image"] != expected_uri and _image_cid(document["image"], source, listings) != expected_image:
            report.add(token_id, "metadata-wrong-image", cid=cid, points_at=document["image"],
                       expected=f"ipfs://{expected_image}")
    report.checked["metadata"] = len(tokens)


def _image_cid(uri: str, source: BlockSource, listings: dict[CID, dict[str, CID]]) -> str | None:
    """The file CID an `image` URI names (a path under a directory is walked); None when it cannot be."""
    try:
        found = resolve(uri, source.fetch_block, listings)
    except Unreadable:
        return None
    return str(found) if found else None


def _read_metadata(cid: CID, source: BlockSource, report: AuditReport, token_id: int) -> bytes | None:
    try:  # a metadata document is a few KB: a 1 GB one at the contract's root is never held
        return read_file(cid, source.fetch_block, MAX_DOCUMENT_BYTES)
    except Unreadable as exc:
        report.add(token_id, "metadata-unretrievable", cid=cid, source=source.name, reason=str(exc))
        return None


# -- page ----------------------------------------------------------------------------------------

def audit_page(col: Collection, ledger: Ledger, record: ManifestRecord, report: AuditReport) -> None:
    """The built page (and the last published one) must embed the current metadata root and contract."""
    from mintprep.state import find_contract
    from mintprep.page import page_manifest, read_page_config

    index = col.page_dir / "index.html"
    if index.is_file():
        report.checked["page"] = str(index)
        # The contract a page is built for (`collection_page_inputs` asks the same), without rebuilding its inputs.
        expected_contract = find_contract(col, ledger)
        for stale in page_differences(read_page_config(index), page_manifest(col, ledger, record), expected_contract):
            report.add(None, "page-stale", page=str(index), **stale)
    published = ledger.latest_publish()
    if published is not None and published.metadata_root != record.metadata_root and not withholding(col, ledger):
        report.add(None, "page-stale", page=published.location, field="metadata_root",
                   embedded=published.metadata_root, current=record.metadata_root,
                   reason=f"the page published to {published.target} was built for an older metadata root")


def page_differences(config: dict[str, Any], manifest: dict[str, Any], contract: str | None) -> list[dict[str, Any]]:
    """Where a page's embedded config disagrees with the current manifest (in its JSON form, as pages are built
    from) and contract (pure)."""
    stale = []
    if config.get("metadata_root") != manifest.get("metadata_root"):
        stale.append({"field": "metadata_root", "embedded": config.get("metadata_root"),
                      "current": manifest.get("metadata_root")})
    embedded_contract = config.get("contract")
    if (embedded_contract or "").lower() != (contract or "").lower():
        stale.append({"field": "contract", "embedded": embedded_contract, "current": contract})
    shown = {entry[0]: entry[2] for entry in config.get("tokens", [])}
    current = {t["token_id"]: t["image_cid"] for t in manifest.get("tokens", [])}
    differing = sorted(t for t in shown.keys() | current.keys() if shown.get(t) != current.get(t))
    if differing:
        stale.append({"field": "tokens", "tokens": differing,
                      "reason": "the gallery shows images other than the manifest's"})
    return stale


# -- chain ---------------------------------------------------------------------------------------

def audit_chain(ws: Workspace, report: AuditReport) -> "LiveState | None":
    """Which tokens are sold and what each token's URI is, read through the contract's profile, and whether the
    contract points at the ledger's metadata (price, cap and supply are `mintprep check`'s)."""
    if ws.deployed_contract() is None:
        report.checked["chain"] = "no contract configured or deployed"
        return None
    from mintprep.chain import read_live

    live = read_live(ws)
    report.checked["chain"], report.family, report.minted = live.family.address, live.family.name, live.minted
    report.base_uri_on_chain = live.base_uri
    report.checked["sold"] = live.sold_rule()
    record = ws.ledger.current_manifest()
    expected = base_uri_for(record.metadata_root) if record else None
    if live.base_uri is not None and live.base_uri != expected:
        setters = ", ".join(live.family.profile.uri_setters().values()) or "no setter"
        report.add(None, "chain-base-uri-stale", field="base_uri", expected=expected, on_chain=live.base_uri,
                   fix=f"`mintprep audit --repair` points it at {expected} through {setters}")
    return live


# -- what collectors see -------------------------------------------------------------------------

def audit_live(manifest: Manifest, live: "LiveState", sources: list[BlockSource], col: Collection,
               report: AuditReport) -> None:
    """Every token id whose live URI names another document than the manifest's: that document and its image,
    judged as collectors get them; the ledger's problems for such a token are marked not yet published."""
    tokens = manifest.by_token()
    differing: set[int] = set()
    listings: dict[CID, dict[str, CID]] = {}
    shared = live.shared_uris()
    for token_id in sorted(set(tokens) | set(live.minted)):
        uri = live.uri(token_id)
        if uri is None or uri in shared:
            continue  # no URI on chain yet (nothing to judge), or the unrevealed placeholder every token shows
        found = _fetch_live_file(uri, sources, listings)
        token = tokens.get(token_id)
        if isinstance(found, tuple) and token is not None and found[0] == token.metadata_cid:
            continue  # collectors see the manifest's own file: the checks above judged it
        differing.add(token_id)
        if isinstance(found, str):
            report.add(token_id, "metadata-unretrievable", "live", uri=uri, reason=found)
            continue
        errors, document = metadata_errors(found[1])
        if errors:
            report.add(token_id, "metadata-invalid", "live", uri=uri, cid=found[0], errors=errors)
            continue
        image = _fetch_live_file(document["image"], sources, listings)
        if isinstance(image, str):
            report.add(token_id, "image-unretrievable", "live", uri=uri, image=document["image"], reason=image)
            continue
        _judge_image(col, token_id, CID.parse(image[0]), image[1], report, "live")
    report.problems = [replace(p, where="not-yet-published") if p.token_id in differing and p.where == "published"
                       else p for p in report.problems]
    report.checked["live"] = {"family": live.family.name, "differing_from_ledger": sorted(differing),
                              "placeholders": sorted(shared)}


def _fetch_live_file(uri: str, sources: list[BlockSource],
                     listings: dict[CID, dict[str, CID]]) -> tuple[str, bytes] | str:
    """(file CID, bytes) of what `uri` names, from the first source that has it intact; else why not. Within the
    import's bound for an image: the contract may point anywhere, and a stranger's "image" is never held past it."""
    reasons = []
    for source in sources:
        try:
            cid = resolve(uri, source.fetch_block, listings)
            if cid is None:
                return f"{uri!r} is not an IPFS address"
            return str(cid), read_file(cid, source.fetch_block, MAX_IMPORTED_IMAGE_BYTES)
        except Unreadable as exc:
            reasons.append(f"{source.name}: {exc}")
    return "; ".join(reasons) or "no source to read it from"
