"""The generate stage: each token's plan, and a stored image per plan, from the ledger when its request is unchanged
(and its object intact), else generated through the workspace's executor and recorded (object first, then its
generation row and attempts). Generation itself is a pure function of a request (mintprep.generate)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mintprep.collection import PiecePlan, plan_collection, read_recipe_log, plan_seed
from mintprep.generate import GenerationRequest, GenerationResult
from mintprep.stages.screen import failure_is_stale, judged_under
from mintprep.state import AttemptRow, GenerationRow, Workspace, append_drops, attempt_drop


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
    recipes: dict[int, str] = field(default_factory=dict)  # generated token -> which recipe gave its first seed


def plan_pieces(ws: Workspace) -> list[PiecePlan]:
    """Every token's traits, prompt and recipe; an imported token keeps the traits its published metadata carries,
    and a piece the creator's generation log names takes its logged seed, prompt and sampling."""
    return plan_collection(ws.spec, ws.ledger.imported_traits(),
                           read_recipe_log(ws.col.base_dir, ws.spec.generator, ws.spec.size))


def generate_pieces(ws: Workspace, plans: list[PiecePlan]) -> Generated:
    """A stored image per plan: from the ledger when its request is unchanged (and its object intact), else made.
    A token published on an imported document builds on it still: new art, and every field mintprep does not own
    kept (a repaired piece's metadata is the creator's shape, in `audit --repair` and in each `run` after it)."""
    spec, ledger = ws.spec, ws.ledger
    result = Generated({}, [], {})
    if not plans:
        return result
    record = ledger.current_manifest()
    sources = {t.token_id: t.source_metadata_sha256 for t in record.manifest.tokens} if record else {}
    rows: dict[int, tuple[PiecePlan, GenerationRow]] = {}
    todo: list[tuple[PiecePlan, GenerationRequest, str]] = []
    first_attempts = ledger.first_attempts()
    for plan in plans:
        first = first_attempts.get(plan.token_id, 0)
        request = GenerationRequest(token_id=plan.token_id, prompt=plan.prompt, negative_prompt=plan.negative_prompt,
                                    collection_seed=spec.seed,
                                    settings=spec.generator_for(plan.token_id, dict(plan.logged_sampling)),
                                    guards=spec.guards, first_attempt=first, seed=plan_seed(plan, first)[0])
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
            result.recipes[plan.token_id] = plan_seed(plan, first_attempts.get(plan.token_id, 0))[1]
            advance(ws.executor.status())
    for token_id, (plan, row) in sorted(rows.items()):
        if row.png_sha256 is None:
            result.failed.append(FailedPiece(token_id, plan.prompt, _rejection_summary(ws, row.request_key)))
            result.failed_keys[token_id] = row.request_key
        else:
            result.candidates[token_id] = Candidate(plan, row.png_sha256, row.request_key, row.provenance,
                                                    sources.get(token_id))
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
