"""`mintprep review`: the sheet to look at before deploying (what it shows; mintprep.commands.review_pages
renders it, paginated, so it stays small to open at 10,000 tokens).

Every token with its name, image, traits, rarity rank, guard metrics and pin state; every rejected attempt from the
drop log with the guard and step that rejected it, its seed and precision (and the image, when one was stored);
the near-duplicate pairs side by side (the drop log's, and those `audit` finds among the published pieces); the
trait table (realized counts against the weights). An imported token shows the name and traits its published
metadata carries. Reads the ledger; where the folder can be written, keeps the verdicts it judges and the
thumbnails it makes in caches beside it (mintprep.state.verdict_cache, mintprep.state.thumbnail_cache).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mintprep.collection import Collection, RarityReport, plan_collection, rarity_report, token_name
from mintprep.state import IMPORTED_KEY, Ledger, ObjectStore, PieceRecord, ThumbnailCache
from mintprep.stages import StoredVerdict, stored_verdicts, PUBLISHED, judge
from mintprep.guards import load_rgb, thumbnail_png

THUMBNAIL_SIDE = 128


@dataclass(frozen=True)
class TokenView:
    token_id: int
    name: str
    traits: list[tuple[str, str]]
    prompt: str
    status: str  # pinned | kept (rejected now, its published piece stays) | rejected | pending
    imported: bool
    image_cid: str | None
    png_sha256: str | None
    rank: int
    score: float
    verdict: StoredVerdict | None


@dataclass(frozen=True)
class DropView:
    """One rejected attempt, as the drop log recorded it."""

    token_id: int
    attempt: int | None  # None: an imported piece, judged as published
    seed: int | None
    precision: str | None
    guard: str | None
    step: int | None
    stage: str  # generate | validate
    reason: str
    collides_with: int | None
    png_sha256: str | None  # validate stage: the stored image that was rejected
    thumbnail_sha256: str | None  # generate stage: a small PNG of the decode a pixel guard rejected

    @property
    def image(self) -> str | None:
        return self.png_sha256 or self.thumbnail_sha256


@dataclass
class Review:
    name: str
    counts: dict[str, int]
    tokens: list[TokenView]
    drops: list[DropView]
    rarity: RarityReport
    images: Mapping[str, bytes]  # png sha256 -> thumbnail PNG

    def to_json(self) -> dict[str, Any]:
        def token(t: TokenView) -> dict[str, Any]:
            data = asdict(t)
            data["traits"] = dict(t.traits)
            data["verdict"] = None if t.verdict is None else {**asdict(t.verdict), "phash": f"{t.verdict.phash:016x}"}
            return data

        return {"name": self.name, "counts": self.counts, "tokens": [token(t) for t in self.tokens],
                "rejected_attempts": [asdict(d) for d in self.drops], "rarity": self.rarity.to_json()}


def gather_review(col: Collection) -> Review:
    spec = col.spec
    drops = read_drops(col.state.drop_log)
    images: Mapping[str, bytes] = {}
    pieces, imported, names, verdicts = {}, {}, {}, {}
    if col.state.has_ledger():
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            pieces = ledger.pieces()
            imported = ledger.imported_traits()
            record = ledger.current_manifest()
            names = {t.token_id: t.name for t in record.manifest.tokens} if record else {}
            stored = {p.png_sha256 for p in pieces.values() if p.png_sha256 and ledger.objects.has(p.png_sha256)}
            verdicts = stored_verdicts(col, ledger, sorted(stored), record=False)
            drops += judged_pairs(col, ledger, pieces, drops, verdicts)
            stored |= {d.png_sha256 for d in drops if d.png_sha256 and ledger.objects.has(d.png_sha256)}
            images = Thumbnails(ledger.objects, spec.generator.upscale, stored,
                                {d.thumbnail_sha256 for d in drops
                                 if d.thumbnail_sha256 and ledger.objects.has(d.thumbnail_sha256)},
                                ThumbnailCache(col.state_dir, f"u{spec.generator.upscale}-{THUMBNAIL_SIDE}-z1"))
    plans = plan_collection(spec, imported)
    rarity = rarity_report(spec, plans, imported=set(imported))
    ranks = {t.token_id: t for t in rarity.tokens}
    tokens = []
    for plan in plans:
        piece = pieces.get(plan.token_id)
        sha = piece.png_sha256 if piece else None
        tokens.append(TokenView(plan.token_id, names.get(plan.token_id, token_name(spec, plan.token_id)),
                                list(plan.traits), plan.prompt, piece.status if piece else "pending",
                                bool(piece and piece.request_key.startswith(IMPORTED_KEY)) or plan.token_id in imported,
                                piece.image_cid if piece else None, sha, ranks[plan.token_id].rank,
                                ranks[plan.token_id].score, verdicts.get(sha) if sha else None))
    counts = Counter(t.status for t in tokens)
    summary = {"tokens": len(tokens), **{k: counts.get(k, 0) for k in ("pinned", "kept", "rejected", "pending")},
               "rejected_attempts": len(drops), "duplicates": sum(d.guard == "duplicate" for d in drops)}
    return Review(spec.name, summary, tokens, drops, rarity, images)


def judged_pairs(col: Collection, ledger: Ledger, pieces: dict[int, PieceRecord], drops: list[DropView],
                 verdicts: Mapping[str, StoredVerdict]) -> list[DropView]:
    """Near-duplicate pairs among the published pieces, judged as `audit` judges them (the same verdicts and
    hashes, from the ledger or the verdict cache), that the drop log does not already name: an imported
    collection's pairs, which only `run` would have logged. Without the chain, no piece counts as minted.
    `verdicts`: those the review read (by png sha256), judged from rather than read again."""
    images = {t: p.png_sha256 for t, p in pieces.items()
              if p.status in PUBLISHED and p.png_sha256 and ledger.objects.has(p.png_sha256)}
    logged = {(d.token_id, d.collides_with) for d in drops if d.guard == "duplicate"}
    return [DropView(r.token_id, None, None, None, "duplicate", None, "validate", r.reason, r.collides_with,
                     images[r.token_id], None)
            for r in judge(col, ledger, images, record=False, pieces=pieces, held=verdicts)
            if r.collides_with is not None and (r.token_id, r.collides_with) not in logged]


def read_drops(path: Path) -> list[DropView]:
    if not path.exists():
        return []
    drops = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
            attempt, seed = d.get("attempt"), d.get("seed")
            drops.append(DropView(int(d["token_id"]), None if attempt is None else int(attempt),
                                  None if seed is None else int(seed), d.get("precision"),
                                  d.get("guard"), d.get("step"), d.get("stage", "generate"), str(d.get("reason") or ""),
                                  d.get("collides_with"), d.get("png_sha256"), d.get("thumbnail_sha256")))
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a killed run: the ledger, not the log, is the record
    return drops


class Thumbnails(Mapping[str, bytes]):
    """sha256 -> a small PNG, made from the object store when a page shows it: the sheet is written a page at a
    time, and 10,000 thumbnails made up front were most of a review's memory."""

    def __init__(self, objects: ObjectStore, upscale: int, pieces: set[str], made: set[str],
                 cache: ThumbnailCache) -> None:
        self._objects, self._upscale, self._pieces, self._made = objects, upscale, pieces, made - pieces
        self._cache = cache

    def __getitem__(self, sha: str) -> bytes:
        if sha in self._pieces:
            return self._cache.get(sha, lambda: thumbnail(self._objects.get(sha), self._upscale))
        if sha in self._made:  # the generate stage stored this one small already
            return self._objects.get(sha)
        raise KeyError(sha)

    def __iter__(self) -> Iterator[str]:
        return iter(self._pieces | self._made)

    def __len__(self) -> int:
        return len(self._pieces) + len(self._made)


def thumbnail(png: bytes, upscale: int) -> bytes:
    """The piece at its generation resolution (the upscale adds nothing), a few KB as a PNG."""
    return thumbnail_png(load_rgb(png)[::upscale, ::upscale], THUMBNAIL_SIDE)
