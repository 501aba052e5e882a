"""Command-line interface: a thin layer over functions a Python user can call too.

Each command module registers its commands on the shared app when imported; the app imports a command's module
only when that command runs (cli/app.py HELP_PANELS names them), so a command pays for no other's imports.
"""

import os

from mintprep.cli.app import app


def main() -> None:
    # pydantic scans every installed package's entry points for plugins when it builds its first model (typer's
    # options, then collection.yaml's): ~0.1 s of a start, for plugins mintprep does not use. A value the user set
    # (an empty one keeps plugins on) wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    app()
