"""`audit --html`: one self-contained page to look at — every problem piece as a thumbnail, its guard metrics,
and for a repair the image before and after. No script, no external request: images are data: URIs and
every string from the collection is escaped, so the file is safe to open and to mail around.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mintprep.base import shown_html as _e, write_atomic
from mintprep.state import Ledger

if TYPE_CHECKING:
    from mintprep.stages import AuditReport
    from mintprep.collection import Collection
    from mintprep.commands.repair import RepairOutcome

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}
.piece{display:inline-block;margin:0 1em 1em 0;text-align:center}.piece img{width:128px;height:128px;image-rendering:pixelated;border:1px solid #999}
.missing{width:128px;height:128px;display:flex;align-items:center;justify-content:center;background:#eee;border:1px dashed #999}
.ok{color:#060}.bad{color:#a00}code{font-size:12px;word-break:break-all}
"""


def write_report(path: Path, col: "Collection", report: "AuditReport", outcome: "RepairOutcome | None" = None) -> None:
    """Write the report to `path` (atomically: a reader never sees half a file)."""
    after_images: dict[int, bytes] = {}
    gallery: list[tuple[int, str, bytes | None]] = []
    if outcome is not None and outcome.plan is not None:
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            for token_id, new in outcome.plan.replacements.items():
                if ledger.objects.intact(new["png_sha256"]):
                    after_images[int(token_id)] = ledger.objects.get(new["png_sha256"])
            record = ledger.current_manifest()
            if outcome.after is not None and record is not None:  # the after state: every token as it now is
                gallery = [(t.token_id, t.image_cid,
                            ledger.objects.get(t.png_sha256) if ledger.objects.intact(t.png_sha256) else None)
                           for t in record.manifest.tokens]
    write_atomic(Path(path), render_report(col.spec.name, report, outcome, after_images, gallery).encode(),
                 for_people=True)


def render_report(title: str, report: "AuditReport", outcome: "RepairOutcome | None",
                  after_images: dict[int, bytes], gallery: list[tuple[int, str, bytes | None]] = ()) -> str:
    """The report as HTML text (pure)."""
    minted = set(report.minted)
    status = ('<p class="ok">No problems found.</p>' if report.ok
              else f'<p class="bad">{len(report.problems)} problems found.</p>')
    by_token: dict[int, list[Any]] = {}
    for problem in report.problems:
        if problem.token_id is not None:
            by_token.setdefault(problem.token_id, []).append(problem)
    pieces = "".join(_piece(token_id, problems, report.images.get(token_id), after_images.get(token_id),
                            token_id in minted, outcome)
                     for token_id, problems in sorted(by_token.items()))
    collection_rows = "".join(
        f"<tr><td>{_e(p.kind)}</td><td><code>{_e(json.dumps(p.evidence, sort_keys=True))}</code></td></tr>"
        for p in report.problems if p.token_id is None)
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; style-src \'unsafe-inline\'">'
        f"<title>mintprep audit: {_e(title)}</title><style>{STYLE}</style>"
        f"<h1>mintprep audit: {_e(title)}</h1>{status}{_repair_summary(outcome)}"
        + (f"<h2>Pieces</h2>{pieces}" if pieces else "")
        + (f"<h2>Collection</h2><table><tr><th>kind</th><th>evidence</th></tr>{collection_rows}</table>"
           if collection_rows else "")
        + f"<h2>Checked</h2><code>{_e(json.dumps(report.checked, sort_keys=True))}</code>"
        + _after(outcome, gallery) + "</html>\n"
    )


def _piece(token_id: int, problems: list[Any], before: bytes | None, after: bytes | None, minted: bool,
           outcome: "RepairOutcome | None") -> str:
    images = _thumb(before, "as pinned")
    if after is not None:
        images += _thumb(after, "replacement")
    rows = "".join(
        f"<tr><td>{_e(p.kind)}</td><td>{_evidence(p.evidence)}</td></tr>" for p in problems)
    note = " (minted)" if minted else ""
    if outcome is not None and outcome.plan is not None and token_id in outcome.plan.minted_skipped:
        note += " — left alone: " + outcome.plan.minted_why.get(str(token_id), "minted")
    return (f'<section><h3>Token {token_id}{_e(note)}</h3>{images}'
            f"<table><tr><th>kind</th><th>evidence</th></tr>{rows}</table></section>")


def _evidence(evidence: dict[str, Any]) -> str:
    metrics = evidence.get("metrics") or {}
    rest = {k: v for k, v in evidence.items() if k != "metrics"}
    table = "".join(f"<tr><td>{_e(k)}</td><td>{_e(str(v))}</td></tr>" for k, v in sorted(metrics.items()))
    return f"<code>{_e(json.dumps(rest, sort_keys=True))}</code>" + (f"<table>{table}</table>" if table else "")


def _thumb(data: bytes | None, caption: str) -> str:
    if data is None:
        return f'<div class="piece"><div class="missing">no image</div>{_e(caption)}</div>'
    uri = "data:image/png;base64," + base64.b64encode(data).decode()
    return f'<div class="piece"><img alt="{_e(caption)}" src="{uri}"><br>{_e(caption)}</div>'


def _repair_summary(outcome: "RepairOutcome | None") -> str:
    if outcome is None or outcome.plan is None:
        return ""
    plan = outcome.plan
    rows = "".join(
        f"<tr><td>{t.token_id}</td><td>{_e(_done(plan, t))}</td><td>old image <code>{_e(t.old_image_cid)}</code></td>"
        f"<td>new image <code>{_e(plan.replacements.get(str(t.token_id), {}).get('image_cid', t.old_image_cid))}"
        "</code></td></tr>" for t in plan.tokens)
    return (f"<h2>Repair: {_e(outcome.status)}</h2><table><tr><th>token</th><th>done</th><th>before</th>"
            f"<th>after</th></tr>"
            f"{rows}</table><p>metadata root <code>{_e(plan.old_metadata_root)}</code> → "
            f"<code>{_e(plan.new_metadata_root or 'not yet written')}</code></p>")


def _done(plan: Any, token: Any) -> str:
    if token.action == "repin":
        return "pinned again (same CID)"
    return "regenerated" if str(token.token_id) in plan.replacements else "regeneration failed: kept"


def _after(outcome: "RepairOutcome | None", gallery: list[tuple[int, str, bytes | None]]) -> str:
    if outcome is None or outcome.after is None:
        return ""
    after = outcome.after
    status = ('<p class="ok">No problems left.</p>' if after.ok else
              f'<p class="bad">{len(after.problems)} problems left: '
              + _e(", ".join(f"{p.kind} (token {p.token_id})" for p in after.problems)) + "</p>")
    pieces = "".join(_thumb(data, f"token {token_id} · {cid}") for token_id, cid, data in gallery)
    return f"<h2>After the repair</h2>{status}{pieces}"
