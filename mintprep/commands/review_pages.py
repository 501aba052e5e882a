"""The review sheet as HTML files: `<stem>.html` and, beside it, `<stem>-pages/`, rendered (pure) and written
(`write_review`).

`<stem>.html` holds the counts, the trait table, a search over every token (by id, status and trait value), the
first page of token cards and the first few near-duplicate pairs and rejected attempts. Every page of each list
is its own file in `<stem>-pages/` (`tokens-1.html`, `duplicates-1.html`, `rejected-1.html`, ...), linked from
the pagers and the search results, so the first load stays small at 10,000 tokens (the token index the search
reads is a few dozen bytes per token; the images are on the pages that show them).

Every file is self-contained and makes no request: thumbnails are data: URIs, a Content-Security-Policy forbids
anything else (the one inline script, the search in `<stem>.html`, is allowed by its sha256 only; the token index
it reads is a JSON data block, never executed), links are file-relative, and every string that comes from the
collection (names, traits, prompts, reasons) is escaped.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mintprep.base import shown_html as _e, write_atomic

if TYPE_CHECKING:  # the values it renders; the renderer runs without the review's driver
    from mintprep.commands.review import DropView, Review, TokenView

PER_PAGE = 50  # token cards (and pairs, and rejected attempts) per page: ~1.1 MB of real-size art's thumbnails
SHOWN_METRICS = ("spread", "edge_share", "neighbour_corr", "coarse_corr", "hf_ratio", "dead_tile_share",
                 "luma_p1", "luma_p99", "empty_level_share", "dark_run_share", "banded_share")
RESULTS_SHOWN = 500  # search hits listed (the count is always the full one)
PREVIEW = 10  # near-duplicate pairs and rejected attempts shown in the summary file (the rest: on the pages)
# Bytes of HTML each list may take in the summary file, which a browser opens first: with the token index the
# search reads (~0.7 MB at 10,000 tokens) it stays under 2 MB however large the art's thumbnails are (a real-size
# piece with grain makes a 15-18 KB one: 100 cards alone were 2.4 MB).
SUMMARY_SHARE = {"tokens": 700_000, "duplicates": 250_000, "rejected": 150_000}

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}
.counts span{display:inline-block;margin-right:1.5em;font-size:16px}.counts b{font-size:20px}
.grid{display:flex;flex-wrap:wrap;gap:10px}.card{background:#fff;border:1px solid #ccc;padding:6px;width:200px}
.card td{word-break:break-word}.card img,.ph{width:128px;height:128px;image-rendering:pixelated;display:block;margin:0 auto 4px;border:1px solid #999}
.ph{display:flex;align-items:center;justify-content:center;background:#eee;border-style:dashed;color:#666}
.pinned{color:#060}.rejected,.kept,.bad{color:#a00}.pending{color:#666}.small{font-size:12px;color:#555}
.pair{display:inline-flex;gap:8px;align-items:center;margin:0 1.5em 1em 0}figure{margin:0;text-align:center}code{font-size:12px;word-break:break-all}
.pager a,.pager b{margin-right:.5em}#results a{display:inline-block;margin:2px 10px 2px 0}form label{margin-right:1em}
"""

SEARCH_SCRIPT = """(function(){
var data=JSON.parse(document.getElementById('token-index').textContent);
var form=document.getElementById('search'),out=document.getElementById('results');
function href(t){return data.pages+'/tokens-'+(t[4]+1)+'.html#token-'+t[0];}
function run(){
var id=form.elements.id.value.trim(),status=form.elements.status.value;
var wanted=[].map.call(form.querySelectorAll('select[data-trait]'),function(s){return s.value;});
var hits=data.tokens.filter(function(t){
if(id&&String(t[0])!==id)return false;
if(status&&t[1]!==status)return false;
for(var i=0;i<wanted.length;i++){if(wanted[i]!==''&&t[3][i]!==wanted[i])return false;}
return true;});
out.textContent='';
var p=document.createElement('p');p.id='hit-count';p.textContent=hits.length+' matching';out.appendChild(p);
hits.slice(0,data.shown).forEach(function(t){var a=document.createElement('a');a.href=href(t);a.className='hit';
a.setAttribute('data-token',t[0]);a.textContent='#'+t[0]+' '+t[2]+' ('+t[1]+')';out.appendChild(a);});}
form.addEventListener('input',run);form.addEventListener('change',run);
form.addEventListener('submit',function(e){e.preventDefault();run();});})();"""
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SEARCH_SCRIPT.encode()).digest()).decode()

T = TypeVar("T")


def review_files(review: Review, stem: str = "review", per_page: int = PER_PAGE) -> Iterator[tuple[str, str]]:
    """(relative path, HTML) of each file of the sheet as it is rendered: `<stem>.html` first, then
    `<stem>-pages/*.html`; a caller writing each before taking the next holds one page at a time."""
    folder = f"{stem}-pages"
    pairs = [d for d in review.drops if d.guard == "duplicate"]
    by_id = {t.token_id: t for t in review.tokens}
    sections: list[tuple[str, str, Sequence[Any], Callable[[Any], str], Callable[[list[Any]], str]]] = [
        ("tokens", f"Tokens ({review.counts['tokens']})", review.tokens, lambda t: _card(review, t),
         lambda items: f"<div class=grid>{''.join(items)}</div>"),
        ("duplicates", f"Near-duplicates ({len(pairs)})", pairs, lambda d: _pair(review, by_id, d), "".join),
        ("rejected", f"Rejected attempts ({review.counts['rejected_attempts']})", review.drops,
         lambda d: _drop_row(review, d), _drop_table),
    ]
    previews: dict[str, str] = {}
    for key, title, items, one, wrap in sections:
        shown = _preview(items, per_page if key == "tokens" else PREVIEW, SUMMARY_SHARE[key], one)
        more = f"<p class=small>the first {len(shown)} of {len(items)}; every one on the pages</p>" \
            if len(shown) < len(items) else ""
        previews[key] = (f"<h2 id={key}>{_e(title)}</h2>{_pager(key, len(_chunks(list(items), per_page)), 0, folder)}"
                         f"{more}" + (wrap(shown) if shown else "<p>None.</p>"))
    index = (f"<p class=counts id=counts>{_counts(review)}</p>{_warnings(review)}"
             f"<h2>Traits</h2>{_trait_table(review)}{_search(review, folder, per_page)}"
             f"{previews['duplicates']}{previews['rejected']}{previews['tokens']}"
             f"<p class=small>{_e(review.rarity.method)}</p>")
    yield f"{stem}.html", _document(None, review.name, index, script=SEARCH_SCRIPT)
    for key, title, items, one, wrap in sections:
        pages = _chunks(list(items), per_page)
        for number, page in enumerate(pages, start=1):
            pager = _pager(key, len(pages), number, "")
            yield f"{folder}/{key}-{number}.html", _document(
                f"{title}, page {number} of {len(pages)}", review.name, f"<p><a href=\"../{_e(stem)}.html\">"
                f"back to the summary</a></p>{pager}{wrap([one(item) for item in page])}{pager}", script=None)

def write_review(review: Review, target: Path, per_page: int = PER_PAGE) -> list[str]:
    """`review_files` written at `target` and in `<stem>-pages/` as rendered (one page held at a time), pages of an
    earlier, longer sheet removed; the files written, relative to `target`'s folder."""
    files = []
    for name, text in review_files(review, stem=target.stem, per_page=per_page):
        write_atomic(target.parent / name, text.encode(), for_people=True)
        files.append(name)
    folder = target.parent / f"{target.stem}-pages"
    if folder.is_dir():
        for stale in folder.glob("*-*.html"):
            if f"{folder.name}/{stale.name}" not in files:
                stale.unlink()
    return files



def _chunks(items: list[T], size: int) -> list[list[T]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _preview(items: Sequence[T], limit: int, share: int, one: Callable[[T], str]) -> list[str]:
    """The first items rendered, at most `limit` of them and `share` characters in all (at least one)."""
    shown, size = [], 0
    for item in items[:limit]:
        html = one(item)
        if shown and size + len(html) > share:
            break
        shown.append(html)
        size += len(html)
    return shown


def _document(title: str | None, name: str, body: str, *, script: str | None) -> str:
    scripts = f"; script-src 'sha256-{SCRIPT_HASH}'" if script else ""
    heading = f"mintprep review: {name}" + (f" — {title}" if title else "")
    return ("<!doctype html><html lang=en><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
            f'style-src \'unsafe-inline\'{scripts}">'
            f"<title>{_e(heading)}</title><style>{STYLE}</style><h1>{_e(heading)}</h1>{body}"
            + (f"<script>{script}</script>" if script else "") + "</html>\n")


def _pager(key: str, count: int, current: int, folder: str) -> str:
    """Links to every page of a list (`folder`: where the pages are, relative to the linking file); none for an
    empty list, which has no page."""
    if count == 0:
        return ""
    prefix = f"{folder}/" if folder else ""
    links = "".join(f"<b>{n}</b>" if n == current else f'<a href="{_e(prefix)}{key}-{n}.html">{n}</a>'
                    for n in range(1, count + 1))
    return f'<p class=pager data-pager="{key}">pages: {links}</p>'


def _counts(review: Review) -> str:
    return "".join(f'<span data-count="{_e(k)}">{_e(k.replace("_", " "))}: <b>{v}</b></span>'
                   for k, v in review.counts.items())


def _warnings(review: Review) -> str:
    notes = []
    if review.rarity.flagged:
        notes.append(f'<p class="bad" id=draws-wrong>Trait draws look wrong for their weights (chi-square p &lt; 0.01): '
                     f'{_e(", ".join(review.rarity.flagged))}</p>')
    if review.rarity.published_departs:
        notes.append(f'<p class="small" id=published-departs>As published (imported tokens\' metadata, not drawn '
                     f'here): {_e(", ".join(review.rarity.published_departs))} depart from the configured weights.</p>')
    return "".join(notes)


def _trait_table(review: Review) -> str:
    rows = []
    for fit in [*review.rarity.traits, *review.rarity.published]:
        values = "".join(f"<tr><td>{_e(value)}</td><td>{count}</td><td>{fit.expected[value]:.1f}</td></tr>"
                         for value, count in fit.counts.items())
        values += "".join(f"<tr><td>{_e(value)}</td><td>{count}</td><td>not configured</td></tr>"
                          for value, count in fit.unconfigured.items())
        if fit.source == "published":
            verdict = ("departs from the weights, as published" if fit.departs else "consistent with the weights")
        else:
            verdict = '<span class="bad">draws look wrong</span>' if fit.flagged else "consistent with the weights"
        note = " (expected counts under 5: rough)" if fit.low_expected else ""
        overridden = f", {fit.overridden} fixed by pieces:" if fit.overridden else ""
        rows.append(f'<tr data-trait="{_e(fit.trait)}" data-source="{_e(fit.source)}"><td>{_e(fit.trait)}<br>'
                    f'<span class=small>{_e(fit.source)}</span></td><td><table><tr><th>value</th>'
                    f"<th>count</th><th>expected</th></tr>{values}</table></td><td>χ² {fit.chi_square:.2f}, "
                    f"{fit.dof} dof, p = {fit.p_value:.3g}{_e(note)}{_e(overridden)}<br>{verdict}</td></tr>")
    return f"<table><tr><th>trait</th><th>realized vs weight</th><th>goodness of fit</th></tr>{''.join(rows)}</table>"


def _search(review: Review, folder: str, per_page: int) -> str:
    """The search form and the token index it reads: [id, status, name, [value per trait], page index]."""
    names = list(dict.fromkeys(name for t in review.tokens for name, _ in t.traits))
    values: dict[str, set[str]] = {name: set() for name in names}
    rows = []
    for position, t in enumerate(review.tokens):
        traits = dict(t.traits)
        for name, value in traits.items():
            values[name].add(value)
        rows.append([t.token_id, t.status, t.name, [traits.get(name) for name in names], position // per_page])
    data = json.dumps({"pages": folder, "shown": RESULTS_SHOWN, "traits": names, "tokens": rows},
                      ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    statuses = sorted({t.status for t in review.tokens})
    selects = "".join(
        f'<label>{_e(name)} <select data-trait="{_e(name)}"><option value="">any</option>'
        + "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in sorted(values[name])) + "</select></label>"
        for name in names)
    status = ('<label>status <select name=status><option value="">any</option>'
              + "".join(f'<option value="{_e(s)}">{_e(s)}</option>' for s in statuses) + "</select></label>")
    return (f'<h2 id=find>Find tokens</h2><form id=search><label>token id <input name=id size=6 inputmode=numeric>'
            f"</label>{status}{selects}</form><div id=results></div>"
            f'<script type="application/json" id="token-index">{data}</script>')


def _pair(review: Review, current: dict[int, TokenView], d: DropView) -> str:
    other = current.get(d.collides_with) if d.collides_with is not None else None
    which = f"attempt {d.attempt}" if d.attempt is not None else "as published"
    return (f'<div class="pair" data-token="{d.token_id}" data-collides-with="{d.collides_with}"><figure>'
            f"{_img(review, d.png_sha256, f'token {d.token_id} {which} (rejected)')}"
            f'<figcaption class="small">#{d.token_id} {_e(which)}, rejected</figcaption></figure>'
            f"<span>≈</span><figure>{_img(review, other.png_sha256 if other else None, f'token {d.collides_with}')}"
            f'<figcaption class="small">#{d.collides_with}, kept</figcaption></figure>'
            f'<span class="small">{_e(d.reason)}</span></div>')


def _drop_table(rows: list[str]) -> str:
    return ("<table><tr><th>token</th><th>attempt</th><th>seed</th><th>precision</th><th>stage</th><th>guard</th>"
            f"<th>step</th><th>reason</th><th>image</th></tr>{''.join(rows)}</table>")


def _drop_row(review: Review, d: DropView) -> str:
    attempt = "imported" if d.attempt is None else d.attempt
    return (f'<tr data-token="{d.token_id}" data-guard="{_e(d.guard or "")}"><td>{d.token_id}</td><td>{_e(attempt)}</td>'
            f"<td>{'' if d.seed is None else d.seed}</td><td><code>{_e(d.precision or '')}</code></td>"
            f"<td>{_e(d.stage)}</td><td><b>{_e(d.guard or '')}</b></td><td>{'' if d.step is None else d.step}</td>"
            f"<td>{_e(d.reason)}</td><td>{_img(review, d.image, 'rejected image') if d.image else 'not decoded'}</td></tr>")


def _card(review: Review, t: TokenView) -> str:
    traits = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in t.traits)
    metrics = ""
    if t.verdict is not None:
        d = t.verdict.decided_by
        shown = "".join(f"<tr><td>{_e(k)}</td><td>{t.verdict.metrics[k]:g}</td></tr>" for k in SHOWN_METRICS
                        if k in t.verdict.metrics)
        props = f" · {_e(', '.join(t.verdict.properties))}" if t.verdict.properties else ""
        metrics = (f'<div class="small">{"ok" if t.verdict.ok else "fails " + _e(t.verdict.guard or "")} · '
                   f'{"nearest guard" if t.verdict.ok else "decided by"} {_e(d["guard"])}: '
                   f'{_e(d["metric"])} {d["value"]:g} vs {d["threshold"]:g}{props}</div>'
                   f"<details><summary class=small>guard metrics</summary><table>{shown}</table></details>")
    cid = f'<div class="small"><code>{_e(t.image_cid)}</code></div>' if t.image_cid else ""
    origin = " · imported" if t.imported else ""
    return (f'<div class="card" id="token-{t.token_id}" data-token="{t.token_id}" data-status="{_e(t.status)}">'
            f"{_img(review, t.png_sha256, f'token {t.token_id}')}<b>{_e(t.name)}</b><br>"
            f'<span class="{_e(t.status)}">{_e(t.status)}</span>{origin} · rarity rank {t.rank} ({t.score:.3f})'
            f'<table>{traits}</table><div class="small">{_e(t.prompt)}</div>{metrics}{cid}</div>')


def _img(review: Review, sha: str | None, alt: str) -> str:
    data = review.images.get(sha) if sha else None
    if data is None:
        return f'<div class="ph">{_e("no image")}</div>'
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
