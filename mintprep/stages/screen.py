"""The validate stage's decisions over the whole collection, before anything is pinned.

1. Today's pixel guards on every stored image. Their thresholds are not part of the generation key (only the
   tensor thresholds are, see GuardSettings.tensor_thresholds): changing one re-validates the stored images here,
   and only the pieces that now fail are resampled.
2. Near-duplicates: a perceptual hash of every piece that passed, checked through an index
   (mintprep.guards.near_duplicates); a candidate within `guards.duplicate_distance` bits is a duplicate when its
   tiles agree too (`guards.duplicate_tile_diff`). One judgement per pair: the pieces are ranked minted first,
   then published, then those already settled in this run, then by token id, and only the lower-ranked piece of
   a pair is the duplicate (a later or unpublished piece, never a minted one while the other is not).

Every rejection is written to the drop log (`drops.jsonl`), generated and imported pieces alike, with
`collides_with` for a duplicate. A generated piece rejected here is resampled like a rejection during generation:
its next attempt (past every attempt on record, so a new seed) becomes its first attempt, which changes its
generation key. An imported piece is replaced by `mintprep audit --repair`, which reports the same pair. Both the
verdict and the hashes are content-addressed (image sha256 + the pixel thresholds), so a rerun recomputes neither.
"""

from __future__ import annotations

import contextlib

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from collections.abc import Collection as Ids
from typing import Any

from mintprep.collection import Collection
from mintprep.state import GenerationRow, Ledger, PieceRecord, VerdictRow, append_drops, attempt_drop, imported_drop
from mintprep.guards import GuardSettings, Judgement, find_duplicates, hex_hash, judge_rgb, load_rgb
from mintprep.stages.verdict_key import settings_key
from mintprep.base import MAX_PIXELS, UserError


Images = dict[int, str]  # token id -> png sha256
VERDICTS_PER_READ = 500
# Piece statuses whose image a token currently publishes (a "kept" one was rejected later, and stays published).
PUBLISHED = ("pinned", "kept")


@dataclass(frozen=True)
class StoredVerdict:
    """The pixel guards' verdict on a stored image, and its perceptual hash."""

    ok: bool
    guard: str | None
    reasons: list[str]
    metrics: dict[str, float]
    decided_by: dict[str, Any]
    properties: list[str]
    phash: int
    tiles: bytes  # the tile signature near-duplicate candidates are confirmed with


@dataclass(frozen=True)
class Rejection:
    token_id: int
    guard: str  # a pixel guard, or "duplicate"
    reason: str
    metrics: dict[str, Any]
    collides_with: int | None = None


def verdict_row(col: Collection, png_sha256: str, data: bytes, source: str) -> VerdictRow:
    """The judgement of one image's bytes (mintprep.guards.judge_rgb: guards, perceptual hash, tile signature from
    one decode). UserError when the bytes are not a readable image."""
    upscale = col.spec.generator.upscale
    rgb = load_rgb(data, source, max_pixels=MAX_PIXELS * upscale * upscale)
    return judged_row(col, png_sha256, judge_rgb(rgb, col.spec.guards, upscale))


def judged_row(col: Collection, png_sha256: str, judgement: Judgement) -> VerdictRow:
    return VerdictRow(png_sha256, settings_key(col), judgement.ok, judgement.reasons, judgement.facts)


def record_verdicts_of(col: Collection, ledger: Ledger, images: dict[str, bytes],
                       judged: dict[str, Judgement] | None = None) -> None:
    """Record a verdict for each of the images (png sha256 -> bytes) the ledger has none for under today's
    settings (one transaction): what `import` does as it stores each batch, so no later command decodes them
    again. `judged`: judgements already made from the reader's decode (the folder reader's workers), taken as they
    are. An image the guards cannot read gets no verdict (`audit` names it)."""
    judged = judged or {}
    known = ledger.verdict_hashes(images, settings_key(col))
    fresh = []
    for sha, data in images.items():
        if sha in known:
            continue
        if sha in judged:
            fresh.append(judged_row(col, sha, judged[sha]))
            continue
        with contextlib.suppress(UserError):
            fresh.append(verdict_row(col, sha, data, f"object {sha}"))
    if fresh:
        ledger.record_verdicts(fresh)


def stored_verdicts(col: Collection, ledger: Ledger, shas: Iterable[str], *, record: bool = True,
                    details: bool = True) -> dict[str, StoredVerdict]:
    """The guards' verdict and the hash of each stored image, from the ledger when already judged under these
    settings; the new ones are recorded there in one transaction (`record` False: a read-only reader keeps them in
    the verdict cache beside the ledger instead, mintprep.state.verdict_cache). Without `details`, a passing
    verdict keeps only what the near-duplicate check needs (its hashes), not its metrics: 10,000 verdicts' metrics
    were most of an audit's memory."""
    key = settings_key(col)
    found, fresh = {}, []
    shas = list(shas)
    known: dict[str, tuple[bool, list[str], dict[str, Any]]] = {}
    for position, png_sha256 in enumerate(shas):
        if position % VERDICTS_PER_READ == 0:  # read a slice at a time: parsed rows are not all held at once
            known = _known_verdicts(ledger, shas[position:position + VERDICTS_PER_READ], key, details)
        cached = known.get(png_sha256)
        if cached is None:
            row = verdict_row(col, png_sha256, ledger.objects.get(png_sha256), f"object {png_sha256}")
            cached = (row.ok, row.reasons, row.metrics)
            fresh.append(row)
        ok, reasons, facts = cached
        kept = details or not ok
        found[png_sha256] = StoredVerdict(ok, facts["guard"], reasons, facts["pixels"] if kept else {},
                                          facts["decided_by"] if kept else {}, facts["properties"] if kept else [],
                                          int(facts["phash"], 16), bytes.fromhex(facts["tiles"]))
    if fresh and record:
        ledger.record_verdicts(fresh)
    elif fresh:
        ledger.keep_verdicts(fresh)
    return found


def _known_verdicts(ledger: Ledger, shas: list[str], key: str,
                    details: bool) -> dict[str, tuple[bool, list[str], dict[str, Any]]]:
    """The recorded verdicts of `shas`; without `details`, a passing one's facts are only its guard and hashes."""
    if details:
        return ledger.verdicts(shas, key)
    known = ledger.verdict_hashes(shas, key)
    failing = [sha for sha, (ok, _, _) in known.items() if not ok]
    return {**known, **(ledger.verdicts(failing, key) if failing else {})}


def judge(col: Collection, ledger: Ledger, images: Images, *, minted: Ids[int] = (), settled: Ids[int] = (),
          excluded: Ids[int] = (), record: bool = True, pieces: dict[int, PieceRecord] | None = None,
          held: Mapping[str, StoredVerdict] | None = None) -> list[Rejection]:
    """Pixel-guard failures, then near-duplicates among the pieces that passed (pure but for the verdict cache).

    `images`: token id -> png sha256 of the pieces being judged. Published pieces not among them are compared
    against too (a repair regenerates a few), except `excluded` ones (rejected earlier in this run: a decision is
    not taken back). `minted` and then published pieces, then `settled` ones (passed an earlier round of this run),
    win a pair; among equals the lower token id wins. `record` False: judge without writing (a read-only reader).
    `pieces`: the ledger's pieces, and `held`: stored verdicts by png sha256, where the caller holds them already
    (second copies were ~6 MiB of an audit's peak at 10,000 pieces, and ~11 MiB of a review's)."""
    guards = col.spec.guards
    by_sha = _verdicts(col, ledger, set(images.values()), record, held or {})
    verdicts = {t: by_sha[sha] for t, sha in sorted(images.items())}
    rejections = [Rejection(t, v.guard or "pixels", "stored image fails today's guards: " + "; ".join(v.reasons),
                            v.metrics) for t, v in verdicts.items() if not v.ok]
    pieces = ledger.pieces() if pieces is None else pieces
    others = {t: p.png_sha256 for t, p in sorted(pieces.items())
              if t not in images and t not in excluded and t <= col.spec.size and p.status in PUBLISHED
              and p.png_sha256 and ledger.objects.has(p.png_sha256)}
    by_sha = _verdicts(col, ledger, set(others.values()), record, held or {})
    verdicts.update({t: by_sha[sha] for t, sha in others.items()})

    def published(token_id: int) -> bool:
        piece = pieces.get(token_id)
        return piece is not None and piece.status in PUBLISHED and piece.png_sha256 == images.get(
            token_id, piece.png_sha256)

    order = sorted((t for t, v in verdicts.items() if v.ok),
                   key=lambda t: (t not in minted, not published(t), t not in settled, t))
    duplicates = find_duplicates([(t, verdicts[t].phash) for t in order], guards.duplicate_distance,
                                 [verdicts[t].tiles for t in order], guards.duplicate_tile_diff)
    for token_id, match in sorted(duplicates.items()):
        if token_id not in images:
            continue  # a published piece this run does not judge: not this run's to replace
        rejections.append(Rejection(
            token_id, "duplicate", f"near-duplicate of token {match.key}: perceptual hash distance {match.distance} "
            f"(guards.duplicate_distance {guards.duplicate_distance}), tile difference {match.tile_diff:g} "
            f"(guards.duplicate_tile_diff {guards.duplicate_tile_diff:g})",
            {"phash_distance": match.distance, "tile_diff": match.tile_diff,
             "phash": hex_hash(verdicts[token_id].phash)}, match.key))
    return sorted(rejections, key=lambda r: r.token_id)


def _verdicts(col: Collection, ledger: Ledger, shas: set[str], record: bool,
              held: Mapping[str, StoredVerdict]) -> dict[str, StoredVerdict]:
    """`stored_verdicts` of `shas` (with only what judging reads), but those `held` already."""
    found = stored_verdicts(col, ledger, sorted(shas - held.keys()), record=record, details=False)
    return {**found, **{sha: held[sha] for sha in shas & held.keys()}}


def log_rejection(col: Collection, ledger: Ledger, request_key: str, png_sha256: str, rejection: Rejection,
                  logged: set[tuple[int, str, str]]) -> None:
    """One drop-log line per decision (`logged`: `logged_decisions` of the log, updated); an imported piece has no
    attempt."""
    key = (rejection.token_id, png_sha256, rejection.guard)
    if key in logged:
        return
    logged.add(key)
    accepted = next((a for a in ledger.attempts(request_key) if a.accepted), None)
    known = {"guard": rejection.guard, "step": None, "stage": "validate", "reason": rejection.reason,
             "metrics": rejection.metrics, "collides_with": rejection.collides_with, "png_sha256": png_sha256}
    append_drops(col.state, [attempt_drop(rejection.token_id, request_key, accepted, **known) if accepted
                             else imported_drop(rejection.token_id, request_key, **known)])


def resample(col: Collection, ledger: Ledger, request_key: str, rejection: Rejection) -> bool:
    """Move the token past its accepted attempt; False when its attempt budget is spent (or when the piece was
    never generated here: an imported piece is replaced by `audit --repair`, not by `run`)."""
    attempts = ledger.attempts(request_key)
    if not any(a.accepted for a in attempts):
        return False
    next_attempt = max(a.attempt for a in attempts) + 1
    settings = col.spec.generator_for(rejection.token_id)
    if next_attempt >= settings.max_attempts * (1 + col.spec.guards.max_resamples):
        return False
    ledger.set_first_attempt(rejection.token_id, next_attempt, f"{rejection.guard}: {rejection.reason}")
    return True


def judged_under(guards: GuardSettings) -> dict[str, Any]:
    """What a generation that failed every attempt records of the pixel thresholds that failed it."""
    return {"pixel_guards": guards.pixel_thresholds()}


def failure_is_stale(row: GenerationRow, guards: GuardSettings) -> bool:
    """A cached all-attempts-rejected generation is retried once the pixel thresholds differ from those that
    rejected it (they are not in the generation key): loosening a guard retries the same seeds."""
    return row.png_sha256 is None and row.provenance != judged_under(guards)
