"""`mintprep audit COLLECTION.yaml [--repair]`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.text import Text

from mintprep.cli.app import app, console, print_json

if TYPE_CHECKING:
    from mintprep.stages import AuditReport
    from mintprep.commands import RepairOutcome, TokenRepair


@app.command()
def audit(
    collection: Path = typer.Argument(..., help="the collection file (collection.yaml)"),
    repair: bool = typer.Option(False, "--repair", help="replace broken pieces and all that points at them"),
    dry_run: bool = typer.Option(False, "--dry-run", help="with --repair: print the plan, change nothing"),
    include_minted: bool = typer.Option(False, "--include-minted", help="also replace tokens already minted"),
    print_tx: bool = typer.Option(False, "--print-tx", help="print every transaction (setBaseURI, setTokenURI: to, "
                                  "value, calldata, decoded call) instead of sending it, for an owner that is not "
                                  "the configured key (run --repair again once they are mined to finish)"),
    gateway: list[str] = typer.Option([], "--gateway", help="also check retrieval through this trustless gateway "
                                      "(repeatable)"),
    no_chain: bool = typer.Option(False, "--no-chain", help="audit only: skip the contract checks"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="also list the style notes on healthy images "
                                 "(posterized, banded: flat and pixel art are legitimate; never a problem)"),
    html: Path | None = typer.Option(None, "--html", help="write a report with thumbnails of every problem piece"),
    json: bool = typer.Option(False, "--json", help="print the report as JSON on stdout"),
) -> None:
    """Verify everything already pinned and published; with --repair, fix it. Exit 0 clean, 1 problems, 2 bad input."""
    from mintprep.collection import load_collection

    col = load_collection(collection)
    if not repair:
        if dry_run or include_minted or print_tx:
            raise typer.BadParameter("--dry-run, --include-minted and --print-tx go with --repair")
        from mintprep.commands import audit_collection

        report = audit_collection(col, gateways=gateway, check_chain=not no_chain)
        _write_html(html, col, report, None)
        print_json(report.to_json()) if json else _print_audit(report, verbose)
        raise typer.Exit(report.exit_code)
    from mintprep.base import RichProgress
    from mintprep.commands import repair_collection

    with RichProgress(console) as progress:
        outcome = repair_collection(col, include_minted=include_minted, dry_run=dry_run, print_tx=print_tx,
                                    gateways=gateway, progress=progress)
    _write_html(html, col, outcome.before or outcome.after, outcome)
    print_json(outcome.to_json()) if json else _print_repair(outcome, verbose)
    raise typer.Exit(outcome.exit_code)


def _write_html(path: Path | None, col, report: "AuditReport | None", outcome: "RepairOutcome | None") -> None:
    if path is None or report is None:
        return
    from mintprep.commands import write_report

    write_report(path, col, report, outcome)
    console.print(Text(f"report: {path}"))


def _print_audit(report: "AuditReport", verbose: bool = False) -> None:
    minted = set(report.minted)
    _print_style_notes(report.warnings, verbose)
    if report.ok:
        console.print(Text.assemble(("clean", "green"), f": {report.checked.get('tokens', 0)} tokens checked on "
                                    f"{', '.join(report.checked.get('sources', []))}"))
        return
    table = Table(title=f"{len(report.problems)} problems", show_header=True)
    for column in ("token", "kind", "evidence"):
        table.add_column(column, overflow="fold")
    for problem in report.problems:
        token = "—" if problem.token_id is None else str(problem.token_id) + (" (minted)" if problem.token_id in minted
                                                                               else "")
        evidence = "; ".join(f"{k}: {v}" for k, v in problem.evidence.items() if k != "metrics")
        kind = problem.kind + {"published": "", "live": " (live)", "not-yet-published": " (not yet published)"}[
            problem.where]
        table.add_row(token, kind, Text(evidence))  # evidence quotes servers and chains: never markup
    console.print(table)


def _print_repair(outcome: "RepairOutcome", verbose: bool = False) -> None:
    plan = outcome.plan
    if outcome.status == "nothing-to-repair" or plan is None:
        console.print("[green]nothing to repair[/]")
        if outcome.before and not outcome.before.ok:
            _print_audit(outcome.before, verbose)
        return
    # Said as it is: "replaced" only where something was (nothing changes under no-setter or a failure).
    verb = {"planned": "would replace", "no-setter": "did not replace", "failed": "did not replace",
            "awaiting-base-uri": "replaced (collectors see it once the printed transaction is sent)"
            }.get(outcome.status, "replaced")
    if outcome.resumed:
        console.print(f"resuming the interrupted repair (steps done: {outcome.step})")
    for token in plan.tokens:
        new = plan.replacements.get(str(token.token_id), {}).get("image_cid")
        if token.action == "repin":
            console.print(f"token {token.token_id} ({', '.join(token.problems)}): image {token.old_image_cid} "
                          "pinned again under the same CID", highlight=False)
            continue
        comes = f"new image {new}" if new else "a new image"
        comes += " " + _recipe_words(token, plan.replacements.get(str(token.token_id)))
        console.print(f"token {token.token_id} ({', '.join(token.problems)}): {verb} old image {token.old_image_cid} "
                      f"with {comes}", highlight=False)
    for token_id in plan.minted_skipped:
        why = plan.minted_why.get(str(token_id), "minted (pass --include-minted to replace it)")
        console.print(Text(f"token {token_id} left alone: {why}", "yellow"), highlight=False)
    for token_id in plan.failed:
        console.print(f"[red]token {token_id}: every new attempt was rejected; it keeps its old image[/]")
    root = plan.new_metadata_root or "computed once the new images exist"
    console.print(f"metadata root: {plan.old_metadata_root} -> {root}", highlight=False)
    for problem in plan.unrepairable:
        console.print(Text.assemble(("not repaired", "yellow"), f" {problem['kind']}: {problem['evidence']}"),
                      highlight=False)
    if outcome.status == "no-setter":
        console.print(Text(str(outcome.error), "red"), highlight=False)
    if outcome.transactions:
        console.print("[yellow]send these transactions from the contract's owner, then run `mintprep audit --repair` "
                      "again to finish:[/]")
        for tx in outcome.transactions:
            print_json(tx)
    if plan.unpinned:
        console.print(f"unpinned: {', '.join(plan.unpinned)}", highlight=False)
    for refresh in outcome.refreshes:
        state = "accepted" if refresh["accepted"] else "not accepted"
        console.print(Text(f"OpenSea refresh of token {refresh['token_id']}: {state} ({refresh['detail']})"),
                      highlight=False)
    if outcome.before is not None:
        console.print("[bold]before the repair[/]")
        _print_audit(outcome.before, verbose)
    if outcome.after is not None:
        console.print("[bold]after the repair[/]")
        _print_audit(outcome.after, verbose)


def _recipe_words(token: TokenRepair, replacement: dict[str, Any] | None) -> str:
    """Which recipe the new image comes (or came) from, and its seed: a run says so when no recipe was logged."""
    from mintprep.collection import SEED_FROM_WORDS

    planned = SEED_FROM_WORDS[token.recipe].replace("<id>", str(token.token_id))
    if token.recipe == "new-seed":
        planned = f"from attempt {token.next_attempt}, {planned}"
    used = (replacement or {}).get("provenance", {}).get("seed", token.seed)
    if used == token.seed:
        return f"({planned}, seed {token.seed})"
    return f"(the recipe's seed {token.seed} was rejected; a new seed, {used})"


def _print_style_notes(notes: list[dict[str, Any]], verbose: bool) -> None:
    """Style notes on images that pass every guard (posterized, banded) describe flat and pixel art as much as a
    fault: one line saying they exist, the list only with --verbose. Never a problem (the exit code ignores them)."""
    if not notes:
        return
    if not verbose:
        kinds = ", ".join(sorted({note["property"] for note in notes}))
        console.print(Text(f"{len(notes)} style note(s) on healthy images ({kinds}; not problems): --verbose lists "
                           "them", "dim"), highlight=False)
        return
    for note in notes:
        console.print(Text(f"token {note['token_id']}: {note['property']} ({note['metric']} {note['value']:g} > "
                           f"{note['setting']} {note['threshold']:g}; a style note, not a problem)", "yellow"),
                      highlight=False)
