"""Command-line interface: a thin layer over functions a Python user can call too.

Each command module registers itself on the shared app when imported.
"""

from mintprep.cli import (  # noqa: F401  (registration)
    audit_cmd, chain_cmd, export_cmd, import_cmd, ipfs_cmd, page_cmd, review_cmd, run_cmd, validate_cmd,
)
from mintprep.cli.app import app


def main() -> None:
    app()
