"""Command-line interface: a thin layer over functions a Python user can call too.

Each command module registers itself on the shared app when imported.
"""

import os

from mintprep.cli import (  # noqa: F401  (registration)
    audit_cmd, chain_cmd, export_cmd, import_cmd, ipfs_cmd, page_cmd, review_cmd, run_cmd, validate_cmd,
)
from mintprep.cli.app import app


def main() -> None:
    # pydantic scans every installed package's entry points for plugins when it builds its first model (typer's
    # options, then collection.yaml's): ~0.1 s of a start, for plugins mintprep does not use. A value the user set
    # (an empty one keeps plugins on) wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    app()
