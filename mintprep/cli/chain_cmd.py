"""`mintprep check`, `mintprep contract build|deploy|set-base-uri|verify`, `mintprep reveal` and `mintprep provenance`:
each parses its options, calls one driver (mintprep.commands.check, .contract, .reveal, .provenance) and renders
its report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mintprep.net import NETWORKS
from mintprep.cli.app import app, console, print_json

# web3 and eth_account are imported by the commands that talk to a chain, when they run.
if TYPE_CHECKING:
    from mintprep.chain import CheckReport, PlannedTx, RevealResult

contract_app = typer.Typer(help="Build, deploy and update the MintprepDrop contract.", no_args_is_help=True)
app.add_typer(contract_app, name="contract")

COLLECTION = typer.Argument(..., exists=False, dir_okay=False, help="the collection.yaml")
JSON = typer.Option(False, "--json", help="print a JSON result on stdout")
RPC_URL = typer.Option(None, "--rpc-url", help="JSON-RPC endpoint (default: chain.rpc_url, then the public RPC)")
VERIFY_SERVICES = ("sourcify", "etherscan")
KEYSTORE = typer.Option(
    None, "--keystore", help="encrypted JSON keystore (password: MINTPREP_KEYSTORE_PASSWORD or a prompt); "
    "without it the key comes from MINTPREP_PRIVATE_KEY"
)


INCLUDE_MINTED = typer.Option(False, "--include-minted",
                              help="allow changing what minted tokens show (their metadata and image)")


def _ask_password() -> str:
    return typer.prompt("keystore password", hide_input=True)


def _say(text: str) -> None:
    """A line printed as it is: a URL or path wrapped at the console width could not be copied or clicked."""
    console.print(text, soft_wrap=True, highlight=False, markup=False)


def render_check(report: "CheckReport") -> Table:
    from mintprep.chain import format_wei

    marks = {True: "[green]ok[/]", False: "[bold red]MISMATCH[/]", None: "[dim]-[/]"}
    table = Table(title=f"{report.address} via {report.rpc_url}", title_justify="left")
    for column in ("field", "collection / ledger", "on chain", ""):
        table.add_column(column, overflow="fold")
    for row in report.rows:
        # What the chain says is anyone's text (a base URI, a name): shown as text, never as markup.
        table.add_row(row.field, Text(row.expected or ""), Text(row.on_chain or ""), marks[row.ok])
    for cost in report.mint_costs:
        l1 = format_wei(cost.l1_fee_wei) if cost.l1_fee_wei is not None else "none (no GasPriceOracle predeploy)"
        table.add_row(f"mint({cost.quantity}) fee", "",
                      f"{cost.gas} gas: L2 {format_wei(cost.l2_fee_wei)}, L1 {l1}, total {format_wei(cost.total_fee_wei)}",
                      marks[None])
    if not report.mint_costs:
        table.add_row("mint fee", "", Text(f"not estimated: {report.mint_cost_note}"), marks[None])
    return table


@app.command("check")
def check_command(collection: Path = COLLECTION, rpc_url: Optional[str] = RPC_URL, as_json: bool = JSON,
                  print_tx: bool = typer.Option(False, "--print-tx", help="print the owner's setter transaction for "
                                                "each value that drifted (to, value, calldata, decoded call)")) -> None:
    """Compare collection.yaml with the deployed contract: exit 0 when all agree, 1 on a mismatch, 2 if unreachable."""
    from mintprep.collection import load_collection
    from mintprep.commands import check_contract

    report = check_contract(load_collection(collection), rpc_url=rpc_url)
    if as_json:
        print_json(report.to_json())
    console.print(render_check(report))
    for row in report.rows:
        if row.ok is False:
            console.print(Text.assemble(("mismatch:", "bold red"),
                                        f" {row.field}: config {row.expected}, chain {row.on_chain}; fix: {row.fix}"))
    if print_tx and report.fix_calls:
        console.print("send these from the contract's owner:")
        for call in report.fix_calls:
            console.print(Text(json.dumps(call.to_json())), highlight=False)
    if not report.ok:
        raise typer.Exit(1)


@contract_app.command("build")
def build_command(
    check: bool = typer.Option(False, "--check", help="only compare the committed artifacts with a fresh compile"),
    as_json: bool = JSON,
) -> None:
    """Compile contracts/ with solc-js (needs Node and `npm ci --prefix contracts`)."""
    from mintprep.chain import build_artifacts

    built = build_artifacts(check=check)
    if as_json:
        print_json([{"contract": b.contract_name, "path": str(b.path), "fresh": b.fresh} for b in built])
    for b in built:
        state = ("fresh" if b.fresh else "[bold red]STALE[/]") if check else "written"
        console.print(f"{b.contract_name}: {state} {escape(str(b.path))}")
    if not all(b.fresh for b in built):
        raise typer.Exit(1)


@contract_app.command("deploy")
def deploy_command(
    collection: Path = COLLECTION,
    network: Optional[str] = typer.Option(
        None, "--network", help=f"one of {', '.join(NETWORKS)} (default: chain.network)"
    ),
    rpc_url: Optional[str] = RPC_URL,
    keystore: Optional[Path] = KEYSTORE,
    again: bool = typer.Option(False, "--again", help="deploy even though the collection already has a contract"),
    allow_ended_phases: bool = typer.Option(False, "--allow-ended-phases",
                                            help="deploy even when a phase has already ended (it can never mint)"),
    as_json: bool = JSON,
) -> None:
    """Deploy MintprepDrop with the collection's name, size, price and per-wallet cap; record it in the ledger."""
    from mintprep.collection import load_collection
    from mintprep.commands import deploy

    col = load_collection(collection)
    if network is not None and network not in NETWORKS:
        raise typer.BadParameter(f"must be one of {', '.join(NETWORKS)}", param_hint="--network")
    deployed = deploy(col, keystore, _ask_password, network_name=network, rpc_url=rpc_url, again=again,
                      allow_ended_phases=allow_ended_phases)
    if as_json:
        print_json(deployed.to_json())
    _say(f"deployed MintprepDrop at {deployed.address} (tx {deployed.tx_hash}, {deployed.gas_used} gas)")
    explorer = col.spec.chain.endpoint(network)[0].tx_url(deployed.tx_hash)
    if explorer:
        _say(f"explorer: {explorer}")
    _say(f"recorded in the ledger: later commands use it (chain.contract in {col.path} may name it too)")


@contract_app.command("set-base-uri")
def set_base_uri_command(
    collection: Path = COLLECTION,
    print_only: bool = typer.Option(
        False, "--print", help="send nothing: print each call (to, value, data, function and arguments) for a multisig or "
        "hardware wallet"
    ),
    keystore: Optional[Path] = KEYSTORE,
    include_minted: bool = INCLUDE_MINTED,
    as_json: bool = JSON,
) -> None:
    """Point the contract at the ledger's current metadata root through its family's own setter (setBaseURI,
    setUriPrefix, updateBatchBaseURI per batch, Zora's updateMetadataBase, setBaseTokenURI); a family whose admin has
    no such setter is refused by name, nothing sent."""
    from mintprep.collection import load_collection
    from mintprep.commands import base_uri_update

    update = base_uri_update(load_collection(collection), keystore, _ask_password, print_only=print_only,
                             include_minted=include_minted)
    if as_json:
        print_json(update.to_json())
    if not update.calls:
        _say(f"{update.to} ({update.family}) already points at {update.base_uri}: nothing to send")
    for number, call in enumerate(update.calls, 1):
        _say(f"{number}. {call.function} {list(call.args)} on {call.to} (chain {update.chain_id})")
        if update.tx_hashes:
            _say(f"sent: {update.tx_hashes[number - 1]}")
        elif not as_json:
            typer.echo(f"to: {call.to}\nvalue: {call.value}\ndata: {call.data}")


@app.command("reveal")
def reveal_command(
    collection: Path = COLLECTION,
    keystore: Optional[Path] = KEYSTORE,
    redraw: bool = typer.Option(False, "--redraw", help="the reveal block's 256-block window was missed: draw a new "
                                "block (startReveal again, visible on chain) and finish"),
    print_only: bool = typer.Option(False, "--print", help="send nothing: print each transaction still needed "
                                    "(to, value, calldata, call) for a multisig"),
    as_json: bool = JSON,
) -> None:
    """Reveal an unrevealed drop from wherever it stands: startReveal, its future block, reveal with the committed
    secret. A rerun resumes from the chain's state; on a local dev node that mines only on transactions the
    blocks are mined here."""
    from mintprep.collection import load_collection
    from mintprep.commands import planned_reveal_txs, reveal_drop

    col = load_collection(collection)
    if print_only:
        _show_planned_reveal(planned_reveal_txs(col, keystore, _ask_password), as_json)
        return
    result = reveal_drop(col, keystore, _ask_password, redraw=redraw,
                         on_block=lambda head, target: _say(f"waiting for block {target}: head {head} "
                                                            f"({target + 1 - head} to go)"))
    _show_reveal(result, as_json)


def _show_planned_reveal(planned: "list[PlannedTx]", as_json: bool) -> None:
    if as_json:
        print_json([tx.to_json() for tx in planned])
    if not planned:
        _say("already revealed: nothing to send")
    for number, tx in enumerate(planned, 1):
        _say(f"{number}. {tx.call}  (send {tx.when})")
        if not as_json:
            typer.echo(f"to: {tx.to}\nvalue: {tx.value}\ndata: {tx.data}")
    if planned and planned[-1].label == "reveal":
        _say("the reveal calldata opens the committed secret: share it only with the signers")


def _show_reveal(result: "RevealResult", as_json: bool) -> None:
    if as_json:
        print_json(result.to_json())
    _say(f"revealed: starting offset {result.starting_offset} (seed {result.seed}, block {result.reveal_block}); "
         f"base URI {result.base_uri}" + ("" if result.tx_hashes else " (already revealed; nothing sent)")
         + f"; page rebuilt: {result.page}")


@contract_app.command("verify")
def verify_command(
    collection: Path = COLLECTION,
    only: Optional[str] = typer.Option(None, "--only", help="sourcify or etherscan (default: both)"),
    as_json: bool = JSON,
) -> None:
    """Submit the exact solc standard-JSON input to Sourcify and Etherscan and wait for their verdicts."""
    if only is not None and only not in VERIFY_SERVICES:
        raise typer.BadParameter(f"must be one of {', '.join(VERIFY_SERVICES)}", param_hint="--only")
    from mintprep.collection import load_collection
    from mintprep.commands import verify_contract

    outcomes = verify_contract(load_collection(collection), (only,) if only else VERIFY_SERVICES)
    if as_json:
        print_json([o.to_json() for o in outcomes])
    for outcome in outcomes:
        mark = "[green]verified[/]" if outcome.verified else "[bold red]not verified[/]"
        console.print(f"{outcome.service}: {mark} ({escape(outcome.detail)})", soft_wrap=True)
    if not all(o.verified for o in outcomes):
        raise typer.Exit(1)


@app.command("provenance")
def provenance_command(
    collection: Path = COLLECTION,
    verify_from: Optional[str] = typer.Option(
        None, "--verify-from", help="ipfs://METADATA_ROOT to read (default: the contract's base URI, else the last "
        "root this collection pinned)"),
    gateway: list[str] = typer.Option([], "--gateway", help="also read blocks through this trustless gateway"),
    as_json: bool = JSON,
) -> None:
    """Recompute the provenance hash from the published images and compare it with the contract's: exit 1 if they differ."""
    from mintprep.base import RichProgress
    from mintprep.collection import load_collection
    from mintprep.commands import collection_provenance

    col = load_collection(collection)
    with RichProgress(console) as progress:
        result = collection_provenance(col, verify_from, tuple(gateway), progress)
    if as_json:
        print_json(result.to_json())
    _say(f"provenance of ipfs://{result.metadata_root} ({result.images} images): {result.provenance_hash}")
    _say(f"rule: {result.rule}")
    if result.on_chain is not None:
        _say(f"on chain: {result.on_chain} ({'matches' if result.ok else 'DIFFERS'})")
    if result.ok is False:
        raise typer.Exit(1)
