"""`mintprep review`: one self-contained HTML page to look at before deploying.

Every token with its image, traits, rarity rank, guard metrics and pin state; every rejected attempt from the drop
log with the guard and step that rejected it, its seed and precision (and the image, when one was stored); the
near-duplicate pairs side by side; the trait table (realized counts against the weights). Reads the ledger only.

The page has no script and makes no request: thumbnails are data: URIs, a Content-Security-Policy forbids
anything else, and every string that comes from the collection (names, traits, prompts, reasons) is escaped.
"""

from __future__ import annotations

import base64
import html
import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mintprep.base.shown_text import shown_text
from mintprep.collection.config import Collection
from mintprep.state.ledger import Ledger
from mintprep.collection.rarity import RarityReport, rarity_report
from mintprep.stages.screen import StoredVerdict, stored_verdicts
from mintprep.collection.traits import plan_collection
from mintprep.guards.image_guards import load_rgb, thumbnail_png

SHOWN_METRICS = ("spread", "edge_share", "neighbour_corr", "coarse_corr", "hf_ratio", "dead_tile_share",
                 "luma_p1", "luma_p99", "empty_level_share")


@dataclass(frozen=True)
class TokenView:
    token_id: int
    traits: list[tuple[str, str]]
    prompt: str
    status: str  # pinned | rejected | generated | pending
    image_cid: str | None
    png_sha256: str | None
    rank: int
    score: float
    verdict: StoredVerdict | None


@dataclass(frozen=True)
class DropView:
    """One rejected attempt, as the drop log recorded it."""

    token_id: int
    attempt: int
    seed: int
    precision: str
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
    images: dict[str, bytes]  # png sha256 -> thumbnail PNG

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
    plans = plan_collection(spec)
    rarity = rarity_report(spec, plans)
    ranks = {t.token_id: t for t in rarity.tokens}
    drops = read_drops(col.state.drop_log)
    images: dict[str, bytes] = {}
    tokens = []
    pieces = {}
    if col.state.has_ledger():
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            pieces = ledger.pieces()
            stored = {p.png_sha256 for p in pieces.values() if p.png_sha256 and ledger.objects.has(p.png_sha256)}
            verdicts = stored_verdicts(col, ledger, sorted(stored), record=False)
            stored |= {d.png_sha256 for d in drops if d.png_sha256 and ledger.objects.has(d.png_sha256)}
            images = {sha: thumbnail(ledger.objects.get(sha), spec.generator.upscale) for sha in stored}
            images.update({d.thumbnail_sha256: ledger.objects.get(d.thumbnail_sha256) for d in drops
                           if d.thumbnail_sha256 and ledger.objects.has(d.thumbnail_sha256)})
    else:
        verdicts = {}
    for plan in plans:
        piece = pieces.get(plan.token_id)
        sha = piece.png_sha256 if piece else None
        tokens.append(TokenView(plan.token_id, list(plan.traits), plan.prompt, piece.status if piece else "pending",
                                piece.image_cid if piece else None, sha, ranks[plan.token_id].rank,
                                ranks[plan.token_id].score, verdicts.get(sha) if sha else None))
    counts = Counter(t.status for t in tokens)
    summary = {"tokens": len(tokens), **{k: counts.get(k, 0) for k in ("pinned", "rejected", "pending")},
               "rejected_attempts": len(drops), "duplicates": sum(d.guard == "duplicate" for d in drops)}
    return Review(spec.name, summary, tokens, drops, rarity, images)


def read_drops(path: Path) -> list[DropView]:
    if not path.exists():
        return []
    drops = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
            drops.append(DropView(int(d["token_id"]), int(d["attempt"]), int(d["seed"]), str(d.get("precision")),
                                  d.get("guard"), d.get("step"), d.get("stage", "generate"), str(d.get("reason") or ""),
                                  d.get("collides_with"), d.get("png_sha256"), d.get("thumbnail_sha256")))
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a killed run: the ledger, not the log, is the record
    return drops


def thumbnail(png: bytes, upscale: int) -> bytes:
    """The piece at its generation resolution (the upscale adds nothing), small enough for 10,000 in one file."""
    return thumbnail_png(load_rgb(png)[::upscale, ::upscale])


# -- rendering (pure) --------------------------------------------------------------------------------

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}
.counts span{display:inline-block;margin-right:1.5em;font-size:16px}.counts b{font-size:20px}
.grid{display:flex;flex-wrap:wrap;gap:10px}.card{background:#fff;border:1px solid #ccc;padding:6px;width:200px}
.card td{word-break:break-word}.card img,.ph{width:128px;height:128px;image-rendering:pixelated;display:block;margin:0 auto 4px;border:1px solid #999}
.ph{display:flex;align-items:center;justify-content:center;background:#eee;border-style:dashed;color:#666}
.pinned{color:#060}.rejected,.bad{color:#a00}.pending{color:#666}.small{font-size:12px;color:#555}
.pair{display:inline-flex;gap:8px;align-items:center;margin:0 1.5em 1em 0}figure{margin:0;text-align:center}code{font-size:12px;word-break:break-all}
"""


def render_review(review: Review) -> str:
    c = review.counts
    counts = "".join(f'<span data-count="{_e(k)}">{_e(k.replace("_", " "))}: <b>{v}</b></span>' for k, v in c.items())
    flagged = review.rarity.flagged
    warning = (f'<p class="bad">Trait draws look wrong for their weights (chi-square p &lt; 0.01): '
               f'{_e(", ".join(flagged))}</p>' if flagged else "")
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        'style-src \'unsafe-inline\'">'
        f"<title>mintprep review: {_e(review.name)}</title><style>{STYLE}</style>"
        f"<h1>mintprep review: {_e(review.name)}</h1><p class=counts id=counts>{counts}</p>{warning}"
        f"<h2>Traits</h2>{_trait_table(review)}"
        f"<h2 id=duplicates>Near-duplicates ({c['duplicates']})</h2>{_duplicates(review)}"
        f"<h2 id=rejected>Rejected attempts ({c['rejected_attempts']})</h2>{_drops(review)}"
        f"<h2 id=tokens>Tokens ({c['tokens']})</h2><div class=grid>{''.join(_card(review, t) for t in review.tokens)}"
        f"</div><p class=small>{_e(review.rarity.method)}</p></html>\n"
    )


def _trait_table(review: Review) -> str:
    rows = []
    for fit in review.rarity.traits:
        values = "".join(f"<tr><td>{_e(value)}</td><td>{count}</td><td>{fit.expected[value]:.1f}</td></tr>"
                         for value, count in fit.counts.items())
        verdict = '<span class="bad">draws look wrong</span>' if fit.flagged else "consistent with the weights"
        note = " (expected counts under 5: rough)" if fit.low_expected else ""
        overridden = f", {fit.overridden} fixed by pieces:" if fit.overridden else ""
        rows.append(f'<tr data-trait="{_e(fit.trait)}"><td>{_e(fit.trait)}</td><td><table><tr><th>value</th>'
                    f"<th>count</th><th>expected</th></tr>{values}</table></td><td>χ² {fit.chi_square:.2f}, "
                    f"{fit.dof} dof, p = {fit.p_value:.3g}{_e(note)}{_e(overridden)}<br>{verdict}</td></tr>")
    return f"<table><tr><th>trait</th><th>realized vs weight</th><th>goodness of fit</th></tr>{''.join(rows)}</table>"


def _duplicates(review: Review) -> str:
    current = {t.token_id: t for t in review.tokens}
    pairs = []
    for d in (d for d in review.drops if d.guard == "duplicate"):
        other = current.get(d.collides_with) if d.collides_with is not None else None
        pairs.append(f'<div class="pair" data-token="{d.token_id}"><figure>'
                     f"{_img(review, d.png_sha256, f'token {d.token_id} attempt {d.attempt} (rejected)')}"
                     f'<figcaption class="small">#{d.token_id} attempt {d.attempt}, rejected</figcaption></figure>'
                     f"<span>≈</span><figure>{_img(review, other.png_sha256 if other else None, f'token {d.collides_with}')}"
                     f'<figcaption class="small">#{d.collides_with}, kept</figcaption></figure>'
                     f'<span class="small">{_e(d.reason)}</span></div>')
    return "".join(pairs) or "<p>None.</p>"


def _drops(review: Review) -> str:
    if not review.drops:
        return "<p>None.</p>"
    rows = "".join(
        f'<tr data-token="{d.token_id}" data-guard="{_e(d.guard or "")}"><td>{d.token_id}</td><td>{d.attempt}</td>'
        f"<td>{d.seed}</td><td><code>{_e(d.precision)}</code></td><td>{_e(d.stage)}</td><td><b>{_e(d.guard or '')}</b>"
        f"</td><td>{'' if d.step is None else d.step}</td><td>{_e(d.reason)}</td>"
        f"<td>{_img(review, d.image, 'rejected image') if d.image else 'not decoded'}</td></tr>"
        for d in review.drops)
    return ("<table><tr><th>token</th><th>attempt</th><th>seed</th><th>precision</th><th>stage</th><th>guard</th>"
            f"<th>step</th><th>reason</th><th>image</th></tr>{rows}</table>")


def _card(review: Review, t: TokenView) -> str:
    traits = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in t.traits)
    metrics = ""
    if t.verdict is not None:
        d = t.verdict.decided_by
        shown = "".join(f"<tr><td>{_e(k)}</td><td>{t.verdict.metrics[k]:g}</td></tr>" for k in SHOWN_METRICS
                        if k in t.verdict.metrics)
        props = f" · {_e(', '.join(t.verdict.properties))}" if t.verdict.properties else ""
        metrics = (f'<div class="small">{"ok" if t.verdict.ok else "fails"} · nearest guard {_e(d["guard"])}: '
                   f'{_e(d["metric"])} {d["value"]:g} vs {d["threshold"]:g}{props}</div>'
                   f"<details><summary class=small>guard metrics</summary><table>{shown}</table></details>")
    cid = f'<div class="small"><code>{_e(t.image_cid)}</code></div>' if t.image_cid else ""
    return (f'<div class="card" data-token="{t.token_id}" data-status="{_e(t.status)}">'
            f"{_img(review, t.png_sha256, f'token {t.token_id}')}<b>#{t.token_id}</b> "
            f'<span class="{_e(t.status)}">{_e(t.status)}</span> · rarity rank {t.rank} ({t.score:.3f})'
            f'<table>{traits}</table><div class="small">{_e(t.prompt)}</div>{metrics}{cid}</div>')


def _img(review: Review, sha: str | None, alt: str) -> str:
    data = review.images.get(sha) if sha else None
    if data is None:
        return f'<div class="ph">{_e("no image")}</div>'
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def _e(text: Any) -> str:
    return html.escape(shown_text(str(text)), quote=True)
