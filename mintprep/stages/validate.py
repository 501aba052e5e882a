"""The validate stage: today's pixel guards and the near-duplicate check (mintprep.stages.screen) over the stored
images, resampling through the generate stage what fails, until every piece passes or its resamples run out."""

from __future__ import annotations

from dataclasses import dataclass

from mintprep.stages.generate import Candidate, FailedPiece, generate_pieces
from mintprep.stages.screen import Rejection, judge, log_rejection, resample
from mintprep.state import IMPORTED_KEY, Workspace, logged_decisions


@dataclass
class Validated:
    """Pieces that passed the pixel guards and the near-duplicate check, after resampling those that did not."""

    accepted: list[Candidate]
    failed: list[FailedPiece]  # out of resamples, or every resampled attempt rejected
    failed_keys: dict[int, str]
    resampled: list[Rejection]  # every rejection that led to a resample, in order
    generated: int = 0  # pieces the resampling generated


def validate_candidates(ws: Workspace, candidates: list[Candidate]) -> Validated:
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
        regenerated = generate_pieces(ws, again)
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
