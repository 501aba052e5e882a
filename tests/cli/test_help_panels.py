"""`mintprep --help` reads in the order a user works: the panels of cli/app.py HELP_PANELS, each command in one."""

from __future__ import annotations

import re

from typer.testing import CliRunner

import typer.main

import mintprep.cli
from mintprep.cli.app import HELP_PANELS


def test_help_lists_every_command_in_its_panel_in_the_order_a_user_works():
    answer = CliRunner().invoke(mintprep.cli.app, ["--help"], env={"COLUMNS": "200"})
    assert answer.exit_code == 0
    panels = re.findall(r"╭─ (.+?) ─", answer.output)
    assert panels == ["Options", *HELP_PANELS]
    listed = re.findall(r"^│ ([a-z][a-z-]+)\s{2,}", answer.output, re.M)
    assert listed == [name for names in HELP_PANELS.values() for name in names]
    assert listed[:2] == ["run", "status"]


def test_every_command_has_a_panel():
    group = typer.main.get_group(mintprep.cli.app)
    assert sorted(group.commands) == sorted(name for names in HELP_PANELS.values() for name in names)
