"""`mintprep validate IMAGE... [--json] [--config COLLECTION.yaml]`: the pipeline's pixel guards on any files."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mintprep.cli.app import app, console, print_json, reports_errors
from rich.markup import escape

from mintprep.validate import GuardSettings, describe_decision, validate_file


@app.command("validate")
@reports_errors
def validate_command(
    images: list[Path] = typer.Argument(..., help="image files (PNG, JPEG, …) to check"),
    config: Optional[Path] = typer.Option(None, "--config", help="use this collection's guards and upscale factor"),
    json_output: bool = typer.Option(False, "--json", help="print verdicts and measurements as JSON on stdout"),
) -> None:
    """Black, white, flat, border-only, dead tiles and noise checks (posterization is reported, never rejected).
    Exit 0 if all pass, 1 if any is rejected; each line names the metric that decided."""
    guards, upscale = GuardSettings(), 1
    if config is not None:
        from mintprep.config import load_collection

        spec = load_collection(config).spec
        guards, upscale = spec.guards, spec.generator.upscale
    verdicts = {str(path): validate_file(path, guards, upscale=upscale) for path in images}
    if json_output:
        print_json({"ok": all(v.ok for v in verdicts.values()),
                    "images": [{"path": path, "ok": v.ok, "guard": v.guard, "reasons": list(v.reasons),
                                "decided_by": v.decided_by, "properties": list(v.properties),
                                "metrics": v.metrics} for path, v in verdicts.items()]})
    else:
        for path, verdict in verdicts.items():
            status = "[green]ok[/]" if verdict.ok else f"[red]rejected[/] ({'; '.join(verdict.reasons)})"
            console.print(f"{escape(path)}: {status}; {escape(describe_decision(verdict))}", highlight=False)
    if not all(v.ok for v in verdicts.values()):
        raise typer.Exit(1)
