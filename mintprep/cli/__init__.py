"""Command-line interface: a thin layer over functions a Python user can call too.

Each command module registers itself on the shared app when imported.
"""

from mintprep.cli import (audit_cmd, chain_cmd, import_cmd, ipfs_cmd, page_cmd,  # noqa: F401  (registration)
                          run_cmd, validate_cmd)
from mintprep.cli.app import app


def main() -> None:
    app()
