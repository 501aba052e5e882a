"""`mintprep run`: generate → validate → pin → manifest → (check) → page, each stage keyed by its inputs.

Stages are functions over a Workspace that return what they made; `run_collection` (and repair, which
reuses them) alone folds results into its report and moves the ledger's piece pointers. Generation itself is
a pure function of a request (see mintprep.generate), so it can be fanned out without touching anything here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mintprep.collection.config import Collection
from mintprep.generate import GenerationRequest, GenerationResult
from mintprep.base.hashing import content_key, sha256_hex
from mintprep.ipfs import PinBackend, Unreadable, import_bytes, import_directory, read_file
from mintprep.state.drops import append_drops, attempt_drop, logged_decisions
from mintprep.state.ledger import IMPORTED_KEY, AttemptRow, GenerationRow, PieceRecord
from mintprep.collection.manifest import Manifest, PinnedPiece, build_manifest, metadata_files, token_file_name
from mintprep.stages.pin import PinItem, PinOutcome, pin_bytes, pin_content, pin_pieces
from mintprep.base.progress import ProgressSink
from mintprep.collection.published import complete_publication
from mintprep.stages.minted import KeptMinted, keep_minted
from mintprep.stages.screen import Rejection, failure_is_stale, judge, judged_under, log_rejection, resample
from mintprep.stages.withheld import publication_backend
from mintprep.collection.traits import PiecePlan, plan_collection
from mintprep.state.workspace import Workspace


@dataclass
class FailedPiece:
    token_id: int
    prompt: str
    reason: str


@dataclass(frozen=True)
class Candidate:
    """A token's newest image, stored in the object store, not yet judged by today's guards."""

    plan: PiecePlan
    png_sha256: str
    request_key: str
    provenance: dict[str, Any]
    source_metadata_sha256: str | None = None  # imported tokens: the document their metadata builds on


@dataclass
class Generated:
    candidates: dict[int, Candidate]
    failed: list[FailedPiece]
    failed_keys: dict[int, str]
    generated: int = 0
    skipped: int = 0


@dataclass
class Validated:
    """Pieces that passed the pixel guards and the near-duplicate check, after resampling those that did not."""

    accepted: list[Candidate]
    failed: list[FailedPiece]  # out of resamples, or every resampled attempt rejected
    failed_keys: dict[int, str]
    resampled: list[Rejection]  # every rejection that led to a resample, in order
    generated: int = 0  # pieces the resampling generated


@dataclass(frozen=True)
class Pinned:
    pieces: list[PinnedPiece]
    newly_pinned: int


@dataclass(frozen=True)
class Publication:
    manifest: Manifest
    manifest_cid: str


@dataclass
class RunReport:
    pieces: int
    generated: int = 0
    generation_skipped: int = 0
    resampled: list[dict[str, Any]] = field(default_factory=list)  # rejected after generation, sampled again
    rejected: list[FailedPiece] = field(default_factory=list)
    kept_published: list[int] = field(default_factory=list)  # rejected now, their published piece stays
    minted_failing: list[FailedPiece] = field(default_factory=list)  # minted, kept as live, fail today's guards
    pinned: int = 0
    pin_skipped: int = 0
    metadata_root: str | None = None
    manifest_cid: str | None = None
    provenance_hash: str | None = None
    page: str | None = None
    page_blocked: str | None = None
    chain_check: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        return not self.rejected and not self.minted_failing and self.page_blocked is None

    @property
    def exit_code(self) -> int:
        return 0 if self.complete else 1

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = {"generate": self.generation_skipped, "pin": self.pin_skipped}
        data["exit_code"] = self.exit_code
        return data


def run_collection(col: Collection, *, include_minted: bool = False,
                   progress: ProgressSink | None = None) -> RunReport:
    """Every stage; a minted token keeps its live piece and document unless `include_minted` (stages.minted)."""
    col.spec.ipfs.token()  # a missing token is bad input: refuse it before hours of sampling, not after
    if any(phase.allowlist for phase in col.spec.chain.sale_phases()):  # so is a bad allowlist file
        from mintprep.chain.phases import collection_phases

        collection_phases(col)  # read, checked and (once .mintprep exists) cached for the page stage
    with Workspace.open(col, progress=progress) as ws:
        plans = plan_pieces(ws)
        kept = keep_minted(ws, include_minted=include_minted)
        as_published = imported_as_published(ws, plans)
        todo = [p for p in plans if p.token_id not in kept.pieces]
        generated = generate(ws, [p for p in todo if p.token_id not in as_published])
        validated = validate(ws, [*generated.candidates.values(),
                                  *(c for t, c in as_published.items() if t not in kept.pieces)])
        failing = minted_failing(ws, kept, {p.token_id: p.prompt for p in plans})
        pinned = pin(ws, validated.accepted)
        publication = publish_metadata(ws, [*pinned.pieces, *kept.pieces.values()], kept.minted_files,
                                       kept.documents)

        published = publication.manifest.by_token()
        rejected = [*generated.failed, *validated.failed]
        keys = {**generated.failed_keys, **validated.failed_keys}
        ws.ledger.set_pieces(
            [piece_pointer(p.token_id, p.request_key, published) for p in [*pinned.pieces, *kept.pieces.values()]]
            + [piece_pointer(f.token_id, keys[f.token_id], published, status="rejected") for f in rejected])
        ws.ledger.drop_pieces_after(col.spec.size)
        gate = chain_gate(ws)
        return RunReport(
            pieces=len(plans),
            generated=generated.generated + validated.generated, generation_skipped=generated.skipped,
            resampled=[{"token_id": r.token_id, "guard": r.guard, "reason": r.reason,
                        "collides_with": r.collides_with} for r in validated.resampled],
            rejected=sorted(rejected, key=lambda f: f.token_id),
            kept_published=sorted(f.token_id for f in rejected if f.token_id in published),
            minted_failing=failing,
            pinned=pinned.newly_pinned, pin_skipped=len(pinned.pieces) - pinned.newly_pinned,
            metadata_root=publication.manifest.metadata_root, manifest_cid=publication.manifest_cid,
            provenance_hash=publication.manifest.provenance_hash,
            page=page_stage(ws) if gate.blocked is None else None, page_blocked=gate.blocked, chain_check=gate.check,
        )


def minted_failing(ws: Workspace, kept: KeptMinted, prompts: dict[int, str]) -> list[FailedPiece]:
    """Kept minted pieces that today's guards reject: published again unchanged, and named for `audit`."""
    images = {t: p.png_sha256 for t, p in kept.pieces.items() if restore_object(ws, p.png_sha256, p.image_cid)}
    return [FailedPiece(r.token_id, prompts.get(r.token_id, ""), f"minted, fails today's guards: see audit ({r.reason})")
            for r in judge(ws.col, ws.ledger, images)]


def piece_pointer(token_id: int, request_key: str, published: dict[int, Any], status: str = "pinned") -> PieceRecord:
    """The ledger row of a token: what it currently publishes; a rejected token that was published is "kept"."""
    token = published.get(token_id)
    if token is None:
        return PieceRecord(token_id, request_key, None, None, None, status)
    return PieceRecord(token_id, request_key, token.png_sha256, token.image_cid, token.metadata_cid,
                       "pinned" if status == "pinned" else "kept")


def plan_pieces(ws: Workspace) -> list[PiecePlan]:
    """Every token's traits and prompt; an imported token keeps the traits its published metadata carries."""
    return plan_collection(ws.spec, ws.ledger.imported_traits())


def imported_as_published(ws: Workspace, plans: list[PiecePlan]) -> dict[int, Candidate]:
    """Imported tokens not regenerated since: their published image is the candidate, nothing is generated."""
    pieces = ws.ledger.pieces()
    record = ws.ledger.current_manifest()
    tokens = record.manifest.by_token() if record else {}
    found = {}
    for plan in plans:
        piece, token = pieces.get(plan.token_id), tokens.get(plan.token_id)
        if piece is None or token is None or not piece.request_key.startswith(IMPORTED_KEY):
            continue
        if restore_object(ws, token.png_sha256, token.image_cid):
            found[plan.token_id] = Candidate(plan, token.png_sha256, piece.request_key, token.provenance,
                                             token.source_metadata_sha256)
    return found


def restore_object(ws: Workspace, png_sha256: str, image_cid: str) -> bool:
    """The local copy is intact, or is rewritten from the pinned (verified) bytes; False when neither has it."""
    if ws.ledger.objects.intact(png_sha256):
        return True
    try:
        data = read_file(image_cid, publication_backend(ws).fetch_block)
    except Unreadable:
        return False
    if sha256_hex(data) != png_sha256:
        return False
    ws.ledger.objects.put(data)
    return True


# -- generate ------------------------------------------------------------------------------------

def generate(ws: Workspace, plans: list[PiecePlan]) -> Generated:
    """A stored image per plan: from the ledger when its request is unchanged (and its object intact), else made."""
    spec, ledger = ws.spec, ws.ledger
    result = Generated({}, [], {})
    if not plans:
        return result
    rows: dict[int, tuple[PiecePlan, GenerationRow]] = {}
    todo: list[tuple[PiecePlan, GenerationRequest, str]] = []
    first_attempts = ledger.first_attempts()
    for plan in plans:
        request = GenerationRequest(token_id=plan.token_id, prompt=plan.prompt, negative_prompt=plan.negative_prompt,
                                    collection_seed=spec.seed, settings=spec.generator_for(plan.token_id),
                                    guards=spec.guards, first_attempt=first_attempts.get(plan.token_id, 0))
        key = ws.executor.request_key(request)
        row = ledger.generation(key)
        if row is not None and (row.png_sha256 is None or ledger.objects.intact(row.png_sha256)) \
                and not failure_is_stale(row, spec.guards):  # pixel thresholds are not in the key
            rows[plan.token_id] = (plan, row)
            result.skipped += 1
        else:
            todo.append((plan, request, key))
    pending = {request.token_id: (plan, key) for plan, request, key in todo}
    with ws.progress.task("generate", len(todo)) as advance:
        for made in ws.executor.run(request for _, request, _ in todo):
            plan, key = pending.pop(made.token_id)  # a result arrives once per request, in any order
            rows[plan.token_id] = (plan, _record_generation(ws, key, made))
            result.generated += 1
            advance(ws.executor.status())
    for token_id, (plan, row) in sorted(rows.items()):
        if row.png_sha256 is None:
            result.failed.append(FailedPiece(token_id, plan.prompt, _rejection_summary(ws, row.request_key)))
            result.failed_keys[token_id] = row.request_key
        else:
            result.candidates[token_id] = Candidate(plan, row.png_sha256, row.request_key, row.provenance)
    return result


def _record_generation(ws: Workspace, key: str, result: GenerationResult) -> GenerationRow:
    ledger = ws.ledger
    png_sha256 = ledger.objects.put(result.png) if result.png is not None else None  # object first, then the row
    attempts = [
        AttemptRow(a.attempt, a.seed, _precision_text(a.precision), a.guard, a.step, a.reason, a.metrics,
                   accepted=(a.attempt == result.accepted_attempt))
        for a in result.attempts
    ]
    # A generation that failed every attempt notes the pixel thresholds that failed it (they are not in its key).
    row = GenerationRow(key, result.token_id, png_sha256, result.accepted_attempt, result.metrics or {},
                        result.provenance or judged_under(ws.spec.guards))
    ledger.record_generation(row, attempts)
    # The decoded image of a pixel-guard rejection, for `mintprep review` (content-addressed like the rest).
    thumbnails = {a.attempt: ledger.objects.put(a.thumbnail) for a in result.attempts if a.thumbnail}
    append_drops(ws.col.state, (attempt_drop(result.token_id, key, a, thumbnail_sha256=thumbnails.get(a.attempt))
                                for a in attempts if not a.accepted))
    return row


def _precision_text(precision: Any) -> str:
    return precision if isinstance(precision, str) else json.dumps(precision, sort_keys=True)


def _rejection_summary(ws: Workspace, request_key: str) -> str:
    attempts = ws.ledger.attempts(request_key)
    reasons = [f"attempt {a.attempt} ({a.precision}): {a.guard or 'rejected'}"
               + (f" at step {a.step}" if a.step is not None else "") + (f" - {a.reason}" if a.reason else "")
               for a in attempts]
    return f"all {len(attempts)} attempts rejected: " + "; ".join(reasons)


# -- validate ------------------------------------------------------------------------------------

def validate(ws: Workspace, candidates: list[Candidate]) -> Validated:
    """Today's pixel guards on every stored image and near-duplicates across the collection (mintprep.stages.screen);
    a piece that fails either is resampled at its next attempt through the generate stage, until it passes or its
    resamples run out (each resample moves its first attempt forward, so this ends). One judgement per piece per
    run: a piece rejected in one round is not compared against in the next, and the pieces that passed a round
    win any pair against a resampled one."""
    current = {c.plan.token_id: c for c in candidates}
    result = Validated([], [], {}, [])
    logged = logged_decisions(ws.col.state)
    settled: set[int] = set()
    while True:
        again = []
        images = {t: c.png_sha256 for t, c in current.items()}
        for rejection in judge(ws.col, ws.ledger, images, settled=settled, excluded=set(result.failed_keys)):
            candidate = current.pop(rejection.token_id)
            log_rejection(ws.col, ws.ledger, candidate.request_key, candidate.png_sha256, rejection, logged)
            if resample(ws.col, ws.ledger, candidate.request_key, rejection):
                result.resampled.append(rejection)
                again.append(candidate.plan)
            else:
                result.failed.append(FailedPiece(rejection.token_id, candidate.plan.prompt,
                                                 rejection.reason + _left_to(ws, candidate, rejection)))
                result.failed_keys[rejection.token_id] = candidate.request_key
        settled |= set(current)
        if not again:
            break
        regenerated = generate(ws, again)
        result.generated += regenerated.generated
        result.failed += regenerated.failed
        result.failed_keys.update(regenerated.failed_keys)
        current.update(regenerated.candidates)
    result.accepted = [current[t] for t in sorted(current)]
    return result


def _left_to(ws: Workspace, candidate: Candidate, rejection: Rejection) -> str:
    """What happens next to a piece `run` could not resample, said exactly."""
    if not candidate.request_key.startswith(IMPORTED_KEY):
        return f"; no resample left (guards.max_resamples {ws.spec.guards.max_resamples})"
    kept = f"; token {rejection.collides_with} stays" if rejection.collides_with is not None else ""
    return (f"; imported as published, so its published image stays until `mintprep audit --repair` replaces token "
            f"{rejection.token_id} with a new image generated from its published traits{kept} (a minted token only "
            "with --include-minted)")


# -- pin -----------------------------------------------------------------------------------------

def pin(ws: Workspace, candidates: list[Candidate]) -> Pinned:
    """Pin every accepted image where the drop's art is pinned (a hidden drop's: the local store until the reveal)
    and return the pinned pieces."""
    outcomes = pin_images(ws, publication_backend(ws), [(c.plan.token_id, c.png_sha256) for c in candidates])
    pieces = [PinnedPiece.of(c.plan, c.png_sha256, outcome.cid, c.provenance, c.request_key, c.source_metadata_sha256)
              for c, outcome in zip(candidates, outcomes)]
    return Pinned(pieces, sum(outcome.newly_pinned for outcome in outcomes))


def pin_images(ws: Workspace, backend: PinBackend, images: Sequence[tuple[int, str]]) -> list[PinOutcome]:
    """Pin each (token id, PNG sha256) image of the object store on `backend`, verified there, several in flight;
    outcomes in order."""
    ledger = ws.ledger
    # Keyed by the sha256 the ledger already holds: an unchanged piece's PNG is not even read.
    items = [PinItem(sha, lambda sha=sha: import_bytes(ledger.objects.get(sha), ws.profile),
                     kind="image", name=f"{ws.spec.symbol}-{token_id}.png") for token_id, sha in images]
    with ws.progress.task("pin", len(items)) as advance:
        return pin_pieces(ledger, backend, ws.profile, items, advance)


# -- manifest ------------------------------------------------------------------------------------

def publish_metadata(ws: Workspace, accepted: list[PinnedPiece], minted: list[int] | tuple[int, ...] = (),
                     kept_documents: Mapping[int, bytes] | None = None, *, force: bool = False) -> Publication:
    """Write and pin the metadata directory and the manifest over `accepted` and every published token it lacks;
    `kept_documents` (minted tokens' live documents) are written byte for byte instead of afresh; `force` pins
    both again even where the ledger has them (a repair of pins the backend lost). A hidden drop's are pinned in
    the local store only until the reveal (`stages.withheld`)."""
    pieces = complete_publication(ws.ledger, accepted, ws.spec.size, minted)
    current = ws.ledger.current_manifest()
    suffix = current.manifest.token_suffix if current else ".json"  # the names tokenURI already forms
    sources = source_documents(ws, pieces)
    root, metadata_cids = pin_metadata_directory(ws, pieces, publication_backend(ws), suffix, kept_documents,
                                                 force=force, sources=sources)
    manifest = build_manifest(ws.spec, pieces, root, metadata_cids, ws.profile.name, suffix, sources)
    return record_manifest(ws, manifest, force=force)


def pin_metadata_directory(ws: Workspace, pieces: list[PinnedPiece], backend: PinBackend, suffix: str = ".json",
                           kept_documents: Mapping[int, bytes] | None = None, *,
                           force: bool = False, sources: Mapping[str, bytes] | None = None,
                           ) -> tuple[str, dict[int, str]]:
    """(root CID, token id -> metadata file CID) of the directory over `pieces`, pinned on `backend`
    (`sources`: imported tokens' published documents, read from the object store when not given)."""
    spec, ledger = ws.spec, ws.ledger
    sources = source_documents(ws, pieces) if sources is None else sources
    files = {**metadata_files(spec, pieces, sources, suffix),
             **{token_file_name(t, suffix): data for t, data in (kept_documents or {}).items()}}
    dags = {name: import_bytes(data, ws.profile) for name, data in files.items()}
    directory = pin_content(ledger, backend, ws.profile,
                            content_sha256=content_key({name: sha256_hex(data) for name, data in files.items()}),
                            make_dag=lambda: import_directory(dags, ws.profile), kind="metadata",
                            name=f"{spec.symbol}-metadata", force=force)
    return directory.cid, {p.token_id: str(dags[token_file_name(p.token_id, suffix)].root) for p in pieces}


def source_documents(ws: Workspace, pieces: list[PinnedPiece]) -> dict[str, bytes]:
    """Imported tokens' published documents by sha256: what their metadata files and names are made from."""
    return {p.source_metadata_sha256: ws.ledger.objects.get(p.source_metadata_sha256)
            for p in pieces if p.source_metadata_sha256}


def record_manifest(ws: Workspace, manifest: Manifest, *, force: bool = False) -> Publication:
    data = manifest.encode()
    manifest_pin = pin_bytes(ws.ledger, publication_backend(ws), ws.profile, data, kind="manifest",
                             name=f"{ws.spec.symbol}-manifest", force=force)
    ws.ledger.record_manifest(metadata_root=manifest.metadata_root, manifest_cid=manifest_pin.cid,
                              manifest_sha256=ws.ledger.objects.put(data), provenance_hash=manifest.provenance_hash)
    return Publication(manifest, manifest_pin.cid)


# -- chain gate and page -------------------------------------------------------------------------

@dataclass(frozen=True)
class ChainGate:
    check: dict[str, Any] | None  # `mintprep check`'s report, when there is a contract to check
    blocked: str | None  # why the page is not built; None: build it


def chain_gate(ws: Workspace) -> ChainGate:
    """The page is not built for a contract that disagrees with the config (the other stages stand).

    A collection with no contract yet (none configured, none deployed) has nothing to drift from.
    """
    if ws.contract is None:
        return ChainGate(None, None)  # decided without web3, which takes seconds to import: a no-op rerun stays quick
    from mintprep.chain.check import check_collection

    check = check_collection(ws.col, ws.ledger)
    blocked = None if check.ok else "contract disagrees with collection.yaml: " + ", ".join(check.mismatches)
    return ChainGate(check.to_json(), blocked)


def page_stage(ws: Workspace) -> str:
    from mintprep.page.publish import build_collection_page, collection_page_inputs

    return str(build_collection_page(ws.col, collection_page_inputs(ws.col, ws.ledger)).index)
