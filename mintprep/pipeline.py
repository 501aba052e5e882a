"""`mintprep run`: generate → validate → pin → manifest → (check) → page, each stage keyed by its inputs.

Only this driver writes the ledger and the object store; generation itself is a pure function of a
request (see mintprep.generate), so it can be fanned out without touching anything here.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from mintprep.config import Collection
from mintprep.executors import make_executor
from mintprep.generate import GenerationRequest, GenerationResult
from mintprep.hashing import content_key, sha256_hex
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.ledger import AttemptRow, GenerationRow, Ledger, PieceRecord
from mintprep.manifest import PinnedPiece, build_manifest, encode_json, metadata_files
from mintprep.pin import pin_bytes, pin_content
from mintprep.progress import NoProgress, ProgressSink
from mintprep.screening import DROP_LOG, failure_is_stale, judged_under, screen_collection
from mintprep.traits import PiecePlan, plan_collection


@dataclass
class FailedPiece:
    token_id: int
    prompt: str
    reason: str


@dataclass
class RunReport:
    pieces: int
    generated: int = 0
    generation_skipped: int = 0
    resampled: list[dict[str, Any]] = field(default_factory=list)  # rejected after generation, sampled again
    rejected: list[FailedPiece] = field(default_factory=list)
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
        return not self.rejected and self.page_blocked is None

    @property
    def exit_code(self) -> int:
        return 0 if self.complete else 1

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = {"generate": self.generation_skipped, "pin": self.pin_skipped}
        data["exit_code"] = self.exit_code
        return data


def run_collection(col: Collection, *, progress: ProgressSink | None = None) -> RunReport:
    progress = progress or NoProgress()
    col.spec.ipfs.token()  # a missing token is bad input: refuse it before hours of sampling, not after
    plans = plan_collection(col.spec)
    report = RunReport(pieces=len(plans))
    with Ledger.open(col.state_dir) as ledger:
        generated = generate_stage(col, ledger, plans, report, progress)
        accepted = validate_stage(col, ledger, plans, generated, report, progress)
        pinned = pin_stage(col, ledger, accepted, report, progress)
        manifest_stage(col, ledger, pinned, report)
        if not chain_gate(col, ledger, report):
            return report
        page_stage(col, ledger, report)
    return report


# -- generate ------------------------------------------------------------------------------------

def generate_stage(col: Collection, ledger: Ledger, plans: list[PiecePlan], report: RunReport,
                   progress: ProgressSink) -> dict[int, tuple[PiecePlan, GenerationRow]]:
    spec = col.spec
    executor = make_executor(spec.executor, spec.generator)
    done: dict[int, tuple[PiecePlan, GenerationRow]] = {}
    todo: list[tuple[PiecePlan, GenerationRequest, str]] = []
    first_attempts = ledger.first_attempts()
    for plan in plans:
        request = GenerationRequest(token_id=plan.token_id, prompt=plan.prompt, negative_prompt=plan.negative_prompt,
                                    collection_seed=spec.seed, settings=spec.generator_for(plan.token_id),
                                    guards=spec.guards,
                                    first_attempt=first_attempts.get(plan.token_id, 0))
        key = executor.request_key(request)
        row = ledger.generation(key)
        if row is not None and (row.png_sha256 is None or ledger.objects.has(row.png_sha256)) \
                and not failure_is_stale(row, spec.guards):  # [#13] pixel thresholds are not in the key
            done[plan.token_id] = (plan, row)
            report.generation_skipped += 1
        else:
            todo.append((plan, request, key))
    pending = {request.token_id: (plan, key) for plan, request, key in todo}
    try:
        with progress.task("generate", len(todo)) as advance:
            for result in executor.run(request for _, request, _ in todo):
                plan, key = pending.pop(result.token_id)  # a result arrives once per request, in any order
                done[plan.token_id] = (plan, _record_generation(col, ledger, key, result))
                report.generated += 1
                advance(executor.status())
    finally:
        executor.close()
    failed = [(plan, row) for plan, row in (done[t] for t in sorted(done)) if row.png_sha256 is None]
    for plan, row in failed:
        report.rejected.append(FailedPiece(plan.token_id, plan.prompt, _rejection_summary(ledger, row.request_key)))
    ledger.set_pieces([PieceRecord(plan.token_id, row.request_key, None, None, None, "rejected") for plan, row in failed])
    return {t: pr for t, pr in done.items() if pr[1].png_sha256 is not None}


def _record_generation(col: Collection, ledger: Ledger, key: str, result: GenerationResult) -> GenerationRow:
    png_sha256 = ledger.objects.put(result.png) if result.png is not None else None  # object first, then the row
    attempts = [
        AttemptRow(a.attempt, a.seed, _precision_text(a.precision), a.guard, a.step, a.reason, a.metrics,
                   accepted=(a.attempt == result.accepted_attempt))
        for a in result.attempts
    ]
    row = GenerationRow(key, result.token_id, png_sha256, result.accepted_attempt, result.metrics or {},
                        result.provenance or judged_under(col.spec.guards))  # [#13] a failure notes its thresholds
    ledger.record_generation(row, attempts)
    # [#13] the decoded image of a pixel-guard rejection, for `mintprep review` (content-addressed like the rest)
    thumbnails = {a.attempt: ledger.objects.put(a.thumbnail) for a in result.attempts if a.thumbnail}
    rejected = [a for a in attempts if not a.accepted]
    if rejected:
        with (col.state_dir / DROP_LOG).open("a", encoding="utf-8") as log:
            for a in rejected:
                log.write(json.dumps({"token_id": result.token_id, "request_key": key, "attempt": a.attempt,
                                      "seed": a.seed, "precision": a.precision, "guard": a.guard, "step": a.step,
                                      "reason": a.reason, "metrics": a.metrics,
                                      "thumbnail_sha256": thumbnails.get(a.attempt)}, sort_keys=True) + "\n")
    return row


def _precision_text(precision: Any) -> str:
    return precision if isinstance(precision, str) else json.dumps(precision, sort_keys=True)


def _rejection_summary(ledger: Ledger, request_key: str) -> str:
    attempts = ledger.attempts(request_key)
    reasons = [f"attempt {a.attempt} ({a.precision}): {a.guard or 'rejected'}"
               + (f" at step {a.step}" if a.step is not None else "") + (f" - {a.reason}" if a.reason else "")
               for a in attempts]
    return f"all {len(attempts)} attempts rejected: " + "; ".join(reasons)


# -- validate ------------------------------------------------------------------------------------

def validate_stage(col: Collection, ledger: Ledger, plans: list[PiecePlan],
                   generated: dict[int, tuple[PiecePlan, GenerationRow]], report: RunReport,
                   progress: ProgressSink) -> dict[int, tuple[PiecePlan, GenerationRow]]:
    """Today's pixel guards on every stored image and near-duplicates across the collection (mintprep.screening);
    a piece that fails either is resampled at its next attempt through the generate stage."""
    # [#13] hook: the screening loop lives in mintprep.screening; it calls back into generate_stage to resample.
    screening = screen_collection(col, ledger, plans, generated,
                                  regenerate=lambda todo: generate_stage(col, ledger, todo, report, progress))
    report.resampled.extend({"token_id": r.token_id, "guard": r.guard, "reason": r.reason,
                             "collides_with": r.collides_with} for r in screening.resampled)
    plans_by_token = {plan.token_id: plan for plan in plans}
    for token_id, row, reason in screening.failed:
        report.rejected.append(FailedPiece(token_id, plans_by_token[token_id].prompt, reason))
    ledger.set_pieces([PieceRecord(token_id, row.request_key, row.png_sha256, None, None, "rejected")
                       for token_id, row, _ in screening.failed])
    return screening.accepted


# -- pin -----------------------------------------------------------------------------------------

def pin_stage(col: Collection, ledger: Ledger, accepted: dict[int, tuple[PiecePlan, GenerationRow]],
              report: RunReport, progress: ProgressSink) -> list[PinnedPiece]:
    backend = make_backend(col.spec.ipfs, col.state_dir)
    profile = get_profile(col.spec.ipfs.profile)
    pinned = []
    with progress.task("pin", len(accepted)) as advance:
        for token_id, (plan, row) in sorted(accepted.items()):
            # Keyed by the sha256 the ledger already holds: an unchanged piece's PNG is not even read.
            outcome = pin_content(ledger, backend, profile, content_sha256=row.png_sha256,
                                  make_dag=lambda sha=row.png_sha256: import_bytes(ledger.objects.get(sha), profile),
                                  kind="image", name=f"{col.spec.symbol}-{token_id}.png")
            if outcome.newly_pinned:
                report.pinned += 1
            else:
                report.pin_skipped += 1
            pinned.append(PinnedPiece(plan, row.png_sha256, outcome.cid, row.provenance, row.request_key))
            advance()
    return pinned


# -- manifest ------------------------------------------------------------------------------------

def manifest_stage(col: Collection, ledger: Ledger, pinned: list[PinnedPiece], report: RunReport) -> dict[str, Any]:
    spec = col.spec
    backend = make_backend(spec.ipfs, col.state_dir)
    profile = get_profile(spec.ipfs.profile)
    files = metadata_files(spec, pinned)
    dags = {name: import_bytes(data, profile) for name, data in files.items()}
    directory = pin_content(ledger, backend, profile,
                            content_sha256=content_key({name: sha256_hex(data) for name, data in files.items()}),
                            make_dag=lambda: import_directory(dags, profile), kind="metadata",
                            name=f"{spec.symbol}-metadata")
    metadata_cids = {p.plan.token_id: str(dags[f"{p.plan.token_id}.json"].root) for p in pinned}
    manifest = build_manifest(spec, pinned, directory.cid, metadata_cids, profile.name)
    manifest_bytes = encode_json(manifest)
    manifest_pin = pin_bytes(ledger, backend, profile, manifest_bytes, kind="manifest", name=f"{spec.symbol}-manifest")
    manifest_sha256 = ledger.objects.put(manifest_bytes)
    ledger.record_manifest(metadata_root=directory.cid, manifest_cid=manifest_pin.cid,
                           manifest_sha256=manifest_sha256, provenance_hash=manifest["provenance_hash"])
    ledger.set_pieces([PieceRecord(p.plan.token_id, p.request_key, p.png_sha256, p.image_cid,
                                   metadata_cids[p.plan.token_id], "pinned") for p in pinned])
    ledger.drop_pieces_after(spec.size)
    report.metadata_root, report.manifest_cid = directory.cid, manifest_pin.cid
    report.provenance_hash = manifest["provenance_hash"]
    return manifest


# -- chain gate and page -------------------------------------------------------------------------

def chain_gate(col: Collection, ledger: Ledger, report: RunReport) -> bool:
    """The page is not built for a contract that disagrees with the config (the other stages stand).

    A collection with no contract yet (none configured, none deployed) has nothing to drift from.
    """
    from mintprep.chain.check import check_if_deployed

    check = check_if_deployed(col, ledger)
    if check is None:
        return True
    report.chain_check = check.to_json()
    if not check.ok:
        report.page_blocked = "contract disagrees with collection.yaml: " + ", ".join(check.mismatches)
    return check.ok


def page_stage(col: Collection, ledger: Ledger, report: RunReport) -> None:
    from mintprep.page.publish import build_collection_page, collection_page_inputs

    build = build_collection_page(col, collection_page_inputs(col, ledger))
    report.page = str(build.index)
