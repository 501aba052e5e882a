"""`mintprep --help` reads in the order a user works: the panels of cli/app.py HELP_PANELS, each command in one. The
help lists the commands from that table without importing them; each command's module is imported when it runs."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

import mintprep.cli
from mintprep.cli.app import HELP_PANELS, app

LISTED = {name: entry for commands in HELP_PANELS.values() for name, entry in commands.items()}


def test_help_lists_every_command_in_its_panel_in_the_order_a_user_works():
    answer = CliRunner().invoke(mintprep.cli.app, ["--help"], env={"COLUMNS": "200"})
    assert answer.exit_code == 0
    panels = re.findall(r"╭─ (.+?) ─", answer.output)
    assert panels == ["Options", *HELP_PANELS]
    listed = re.findall(r"^│ ([a-z][a-z-]+)\s{2,}", answer.output, re.M)
    assert listed == [name for names in HELP_PANELS.values() for name in names]
    assert listed[:2] == ["run", "status"]


def registered() -> dict[str, tuple[str, str]]:
    """Every command the cli modules register on the app: (its module, the first paragraph of its help)."""
    for module in sorted({module for module, _ in LISTED.values()}):
        importlib.import_module(f"mintprep.cli.{module}")
    found = {}
    for info in app.registered_commands:
        name = info.name or typer.main.get_command_name(info.callback.__name__)
        found[name] = (info.callback.__module__, inspect.getdoc(info.callback))
    for info in app.registered_groups:
        found[info.name] = (info.typer_instance.registered_commands[0].callback.__module__,
                            inspect.cleandoc(info.typer_instance.info.help))
    return {name: (module.removeprefix("mintprep.cli."), doc.split("\n\n")[0]) for name, (module, doc) in found.items()}


def test_the_help_table_names_every_command_its_module_and_its_own_summary():
    assert registered() == LISTED


def test_a_command_built_when_asked_is_the_one_its_module_registers():
    group = typer.main.get_group(app)
    for name, (module, summary) in LISTED.items():
        command = group.get_command(None, name)
        assert command.callback is not None or hasattr(command, "commands")
        assert command.rich_help_panel in HELP_PANELS
        assert (command.help or "").split("\n\n")[0] == summary


SHOW_LOADED = """
import json
import sys
from typer.testing import CliRunner
from mintprep.cli import app
answer = CliRunner().invoke(app, sys.argv[1:])
print(json.dumps([answer.exit_code, sorted(m for m in sys.modules if m.startswith("mintprep.cli.")), answer.output]))
"""


def run_fresh(args: list[str]) -> tuple[int, list[str], str]:
    """(exit code, the cli modules imported, output) of the CLI run with `args` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", SHOW_LOADED, *args], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "120"})
    return tuple(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(("args", "loaded"), [
    (["--help"], ["mintprep.cli.app", "mintprep.cli.lean_typer"]),
    (["status", "--help"], ["mintprep.cli.app", "mintprep.cli.lean_typer", "mintprep.cli.run_cmd"]),
    (["contract", "deploy", "--help"], ["mintprep.cli.app", "mintprep.cli.chain_cmd", "mintprep.cli.lean_typer"]),
])
def test_a_command_imports_its_own_module_only(args: list[str], loaded: list[str]):
    assert run_fresh(args)[:2] == (0, loaded)


def test_a_mistyped_command_is_answered_with_the_names_of_commands_not_imported():
    code, loaded, output = run_fresh(["statu", "x"])
    assert (code, loaded) == (2, ["mintprep.cli.app", "mintprep.cli.lean_typer"])
    assert "No such command 'statu'. Did you mean 'status'?" in output


@pytest.mark.parametrize(("name", "args"), [
    ("export", ["c.yaml", "-o", "out", "--names", "extensionless", "--json"]),
    ("review", ["c.yaml", "--out", "sheet.html", "--per-page", "20"]),
    ("run", ["c.yaml", "--executor", "ray", "--ray-address", ""]),
    ("audit", ["c.yaml", "--gateway", "https://a.example", "--gateway", "https://b.example", "--html", "r.html"]),
    ("review", ["c.yaml", "--per-page", "twenty"]),
    ("cid", ["/nonexistent/file", "--cid-version", "2"]),
])
def test_a_command_reads_its_values_as_typer_alone_does(name: str, args: list[str]):
    """The app skips typer's pydantic adapters for absent, str and Path values (cli/app.py _PlainValue): the values,
    and the refusals, are typer's own."""
    registered()  # every module's commands on the app
    info = next(info for info in app.registered_commands
                if (info.name or typer.main.get_command_name(info.callback.__name__)) == name)
    typer_alone = typer.main.get_command_from_info(info, pretty_exceptions_short=True, rich_markup_mode="rich")
    ours = typer.main.get_group(app).get_command(None, name)

    def parsed(command) -> tuple[str, object]:
        try:
            return "values", command.make_context(name, list(args)).params
        except typer.TyperException as refused:
            return "refused", refused.format_message()

    assert parsed(ours) == parsed(typer_alone)


HELP_IN_FRESH_PROCESS = """
import json, sys
if sys.argv[1] == "typer-alone":
    import typer.rich_utils  # imported as typer imports it: the app's stand-ins are not used
from typer.testing import CliRunner
from mintprep.cli import app
answer = CliRunner().invoke(app, sys.argv[2:], color=True)
print(json.dumps([answer.output, sorted({m.split(".")[0] for m in sys.modules})]))
"""


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["contract", "deploy", "--help"], []])
def test_the_help_is_typer_s_own_without_markdown_or_pygments(args: list[str]):
    def fresh(mode: str) -> tuple[str, list[str]]:
        done = subprocess.run([sys.executable, "-c", HELP_IN_FRESH_PROCESS, mode, *args], capture_output=True,
                              text=True, check=True, env={**os.environ, "COLUMNS": "100", "FORCE_COLOR": "1"})
        return tuple(json.loads(done.stdout.splitlines()[-1]))

    (ours, loaded), (typer_alone, loaded_by_typer) = fresh("app"), fresh("typer-alone")
    assert ours == typer_alone and "\x1b[" in ours  # the same help, colours included
    assert {"markdown_it", "pygments"} <= set(loaded_by_typer)
    assert {"markdown_it", "pygments"} & set(loaded) == set()
