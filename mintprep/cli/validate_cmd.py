"""`mintprep validate IMAGE... [--json] [--config COLLECTION.yaml]`: the pipeline's pixel guards on any files."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.text import Text

from mintprep.cli.app import app, console, print_json
from mintprep.base import UserError


@app.command("validate")
def validate_command(
    images: list[Path] = typer.Argument(..., help="image files (PNG, JPEG, …) to check"),
    config: Optional[Path] = typer.Option(None, "--config", help="use this collection's guards and upscale factor"),
    json_output: bool = typer.Option(False, "--json", help="print verdicts and measurements as JSON on stdout"),
) -> None:
    """Black, white, flat, border-only, dead tiles and noise checks (posterization is reported, never rejected).
    Exit 0 if all pass, 1 if any is rejected, 2 if a file cannot be read as an image (each file still gets its
    own verdict); each line names the metric that decided."""
    from mintprep.guards import GuardSettings, describe_decision, validate_file

    guards, upscale = GuardSettings(), 1
    if config is not None:
        from mintprep.collection import load_collection

        spec = load_collection(config).spec
        guards, upscale = spec.guards, spec.generator.upscale
    verdicts, unreadable = {}, {}
    for path in images:  # one unreadable file gets its own entry; the others keep their verdicts
        try:
            verdicts[str(path)] = validate_file(path, guards, upscale=upscale)
        except UserError as exc:
            unreadable[str(path)] = str(exc)
    ok = not unreadable and all(v.ok for v in verdicts.values())
    code = 2 if unreadable else (0 if ok else 1)
    if json_output:
        entries = [{"path": path, "ok": v.ok, "guard": v.guard, "reasons": list(v.reasons),
                    "decided_by": v.decided_by, "properties": list(v.properties), "warnings": list(v.warnings),
                    "metrics": v.metrics}
                   for path, v in verdicts.items()]
        entries += [{"path": path, "ok": False, "error": message} for path, message in unreadable.items()]
        print_json({"ok": ok, "exit_code": code, "images": entries})
    else:
        for path, verdict in verdicts.items():
            status = Text("ok", "green") if verdict.ok else Text(f"rejected ({'; '.join(verdict.reasons)})", "red")
            console.print(Text.assemble(f"{path}: ", status, f"; {describe_decision(verdict)}"), highlight=False)
        for message in unreadable.values():
            console.print(Text.assemble(("error: ", "bold red"), message), highlight=False)
    if code:
        raise typer.Exit(code)
