"""Every failure is one answer: a literal line on stderr and, under --json, one JSON object on stdout alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from mintprep.cli import app
from tests.conftest import write_collection

# A child that adds a command printing on stdout the ways libraries do (print, a raw write on fd 1, as Ray's log
# monitor does when a worker dies), then runs the CLI: under --json only the JSON answer may reach stdout.
NOISY = r"""
import os, sys
from mintprep.cli import app
from mintprep.cli.app import print_json

@app.command("noisy")
def noisy(json: bool = False, fail: bool = False) -> None:
    print("(raylet) a worker died")
    os.write(1, b"\x1b[33m(pid=123) raw line on fd 1\x1b[0m\n")
    if fail:
        raise RuntimeError("boom [/x] [draft]")
    print_json({"ok": True})

app()
"""


def _child(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NOISY, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_under_json_nothing_but_the_answer_reaches_stdout():
    done = _child("noisy", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True}
    assert "a worker died" in done.stderr and "raw line on fd 1" in done.stderr


def test_an_unexpected_error_is_one_line_and_one_json_object_never_a_traceback():
    done = _child("noisy", "--json", "--fail")
    assert done.returncode == 1
    answer = json.loads(done.stdout)
    assert answer["error"]["kind"] == "internal" and "boom [/x] [draft]" in answer["error"]["message"]
    assert "Traceback" not in done.stderr and "boom [/x] [draft]" in done.stderr


def test_usage_errors_answer_in_json_too(tmp_path: Path):
    for args in (["status", "--json"], ["status", str(tmp_path / "c.yaml"), "--json", "--no-such-flag"],
                 ["run", str(tmp_path / "c.yaml"), "--json", "--executor", "slurm"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert json.loads(result.stdout)["error"]["kind"] in ("usage", "config"), args


def test_schema_accepts_json():
    result = CliRunner().invoke(app, ["schema", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["title"] == "mintprep collection.yaml"


def test_paths_with_brackets_are_printed_literally(tmp_path: Path):
    path = write_collection(tmp_path / "[draft] col [/x]", size=2)
    result = CliRunner().invoke(app, ["status", str(path)])
    assert result.exit_code == 0, result.output
    assert "[draft] col [/x]" in result.stderr.replace("\n", "")  # rich wraps at 80 columns
    missing = CliRunner().invoke(app, ["status", str(tmp_path / "[bold]nope[/].yaml")])
    assert missing.exit_code == 2 and "[bold]nope[/].yaml" in missing.stderr.replace("\n", "")


def test_a_full_disk_is_a_clear_message_with_exit_1():
    """(tests/cli/test_hostile_input_bounds.py runs commands on a real full tmpfs, where a user namespace allows one.)"""
    import errno
    import sqlite3

    from mintprep.cli.app import describe_failure

    for failure in (OSError(errno.ENOSPC, "No space left on device", "/col/.mintprep/objects/ab"),
                    sqlite3.OperationalError("database or disk is full")):
        kind, code, message = describe_failure(failure)
        assert (kind, code) == ("disk-full", 1) and "disk full at " in message


def test_text_from_chains_and_servers_is_shown_literally_in_tables(monkeypatch):
    """A base URI, a name or a server's message is anyone's text: `[/x]` in it would crash rich's markup parser."""
    from rich.console import Console

    import mintprep.cli.audit_cmd as audit_cmd
    from mintprep.commands.audit import AuditReport
    from mintprep.chain.check import CheckReport, CheckRow
    from mintprep.cli.chain_cmd import render_check

    hostile = "ipfs://x/[/x][bold]draft[/bold]"
    report = CheckReport("http://127.0.0.1:1", "0x" + "11" * 20,
                         (CheckRow("base_uri", "ipfs://ok/", hostile, False, "set it"),), (), hostile)
    audit = AuditReport()
    audit.add(3, "metadata-invalid", reason=hostile)
    console = Console(record=True, width=400)
    monkeypatch.setattr(audit_cmd, "console", console)
    console.print(render_check(report))
    audit_cmd._print_audit(audit)
    shown = console.export_text()
    assert shown.count(hostile) == 3, shown
