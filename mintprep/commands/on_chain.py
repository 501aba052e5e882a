"""The drivers behind the commands that talk to the contract (`check`, `contract deploy`, `contract set-base-uri`,
`contract verify`, `reveal`): each opens what its command needs (the ledger, the Workspace, the signing key), runs
the chain steps and returns the report the CLI renders. The CLI builds no Workspace, ledger or store itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mintprep.base.state_dir import StateDir
from mintprep.collection.config import Collection
from mintprep.state.workspace import Workspace

if TYPE_CHECKING:
    from mintprep.chain.base_uri import BaseUriUpdate
    from mintprep.chain.check import CheckReport
    from mintprep.chain.deploy import Deployed
    from mintprep.chain.reveal import PlannedTx, RevealResult
    from mintprep.chain.verify import VerifyOutcome

# Asks for a keystore's password when MINTPREP_KEYSTORE_PASSWORD is unset (the CLI prompts; None: refuse).
AskPassword = Callable[[], str] | None


def check_contract(col: Collection, rpc_url: str | None = None) -> "CheckReport":
    """`check_collection` against the ledger as it stands (read only); a collection checked before its first run has
    no ledger, and the config alone is compared."""
    from mintprep.chain.check import check_collection
    from mintprep.state.ledger import Ledger

    ledger = Ledger.open(col.state_dir, readonly=True) if StateDir(col.state_dir).has_ledger() else None
    try:
        return check_collection(col, ledger, rpc_url=rpc_url)
    finally:
        if ledger:
            ledger.close()


def deploy(col: Collection, keystore: Path | None, ask_password: AskPassword, *, network_name: str | None = None,
           rpc_url: str | None = None, again: bool = False, allow_ended_phases: bool = False) -> "Deployed":
    """Deploy the collection's drop with the key the user gave and record it (`commands.contract.deploy_contract`)."""
    from mintprep.chain.keys import load_signer
    from mintprep.commands.contract import deploy_contract

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return deploy_contract(ws, signer, network_name=network_name, rpc_url=rpc_url, again=again,
                               allow_ended_phases=allow_ended_phases)


def base_uri_update(col: Collection, keystore: Path | None, ask_password: AskPassword, *, print_only: bool = False,
                    include_minted: bool = False) -> "BaseUriUpdate":
    """Point the contract at the ledger's current metadata root and record it; with `print_only`, the transaction
    unsent (no key needed, the ledger read only)."""
    if print_only:
        from mintprep.chain.base_uri import collection_base_uri_update

        with Workspace.open(col, readonly=True) as ws:
            return collection_base_uri_update(ws, include_minted=include_minted)[0]
    from mintprep.chain.keys import load_signer
    from mintprep.commands.contract import point_contract_at_current_root

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return point_contract_at_current_root(ws, signer, include_minted=include_minted)


def verify_contract(col: Collection, services: tuple[str, ...]) -> "list[VerifyOutcome]":
    """Submit the deployed drop's sources to each of `services` and wait for their verdicts."""
    from mintprep.chain.verify import verify_collection

    with Workspace.open(col, readonly=True) as ws:
        return verify_collection(col, ws.ledger, services)


def reveal(col: Collection, keystore: Path | None, ask_password: AskPassword, *, redraw: bool = False,
           on_block: Callable[[int, int], None] = lambda head, target: None) -> "RevealResult":
    """The fair reveal from wherever the drop stands (`commands.reveal.reveal_collection`)."""
    from mintprep.chain.keys import load_signer
    from mintprep.commands.reveal import reveal_collection

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return reveal_collection(ws, signer, redraw=redraw, on_block=on_block)


def planned_reveal_txs(col: Collection, keystore: Path | None, ask_password: AskPassword) -> "list[PlannedTx]":
    """Each transaction the reveal still needs, unsent, for a multisig (`commands.reveal.planned_reveal`)."""
    from mintprep.chain.keys import load_signer
    from mintprep.commands.reveal import planned_reveal

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return planned_reveal(ws, signer)
