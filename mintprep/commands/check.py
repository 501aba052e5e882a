"""The driver behind `mintprep check`: collection.yaml and the ledger, read only, compared with the deployed contract
(mintprep.chain.check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mintprep.base import StateDir
from mintprep.collection import Collection

if TYPE_CHECKING:
    from mintprep.chain import CheckReport


def check_contract(col: Collection, rpc_url: str | None = None) -> "CheckReport":
    """`check_collection` against the ledger as it stands (read only); a collection checked before its first run has
    no ledger, and the config alone is compared."""
    from mintprep.chain import check_collection
    from mintprep.state import Ledger

    ledger = Ledger.open(col.state_dir, readonly=True) if StateDir(col.state_dir).has_ledger() else None
    try:
        return check_collection(col, ledger, rpc_url=rpc_url)
    finally:
        if ledger:
            ledger.close()
