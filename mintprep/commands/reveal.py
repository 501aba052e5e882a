"""`mintprep reveal`: the driver of the fair reveal. Reads where the drop stands on chain, sends what is missing,
records each mined transaction in the ledger, and on request prints the transactions for a multisig instead."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from eth_account.signers.local import LocalAccount

from mintprep.base import UserError, fault_point
from mintprep.chain import PlannedTx, Reveal, RevealResult, RevealStep, mines_on_demand, reveal_secret, run_reveal
from mintprep.collection import base_uri_for, contract_uri_for
from mintprep.state import RELEASED_KIND, Workspace, released

if TYPE_CHECKING:
    from mintprep.collection import Collection


@dataclass(frozen=True)
class RevealTarget:
    chain_id: int
    address: str
    reveal: Reveal
    mine: bool  # a dev node on this machine that mines only on transactions


def reveal_target(ws: Workspace, signer: LocalAccount) -> RevealTarget:
    """The drop, the secret this key derives, and the root to reveal: the ledger's current metadata root."""
    from mintprep.state import deployed_address
    from mintprep.chain import connect, require_chain

    col, ledger = ws.col, ws.ledger

    if col.spec.chain.reveal is None:
        raise UserError(f"{col.path}: chain.reveal is not set: this collection was minted revealed")
    manifest = ledger.current_manifest()
    if manifest is None:
        raise UserError(f"{col.path}: no manifest yet; run `mintprep run` first")
    network, url = col.spec.chain.endpoint()
    address = deployed_address(col, ledger, network)
    w3 = connect(url)
    chain_id = require_chain(w3, network)
    secret = reveal_secret(signer, chain_id, manifest.provenance_hash)
    root = manifest.metadata_root
    reveal = Reveal(w3, address, secret, base_uri_for(root), contract_uri_for(root))
    reveal.check_secret()
    return RevealTarget(chain_id, address, reveal, mines_on_demand(w3, url))


def release_metadata(ws: Workspace) -> str:
    """Pin the images, the current metadata directory and the manifest, kept in the local store so far, on the
    configured backend (same bytes, same CIDs, each verified there before its ledger row; what the ledger has there
    already is skipped, so a release cut short finishes when rerun) and record the release. Before the reveal
    transaction: the base URI it sets must resolve, art included, for every collector."""
    from mintprep.state import complete_publication
    from mintprep.stages import pin_bytes, pin_images, pin_metadata_directory

    col, ledger = ws.col, ws.ledger
    record = ledger.current_manifest()
    assert record is not None
    tokens = record.manifest.tokens
    images = pin_images(ws, ws.backend, [(t.token_id, t.png_sha256) for t in tokens])
    moved = [t.token_id for t, image in zip(tokens, images) if image.cid != t.image_cid]
    if moved:
        raise UserError(f"the images of tokens {moved} pinned for the reveal are not the manifest's CIDs; "
                        "run `mintprep run` first")
    root = record.metadata_root
    if not ws.backend.is_pinned(root):
        pieces = complete_publication(ledger, [], col.spec.size)
        root, _ = pin_metadata_directory(ws, pieces, ws.backend, record.manifest.token_suffix)
    if root != record.metadata_root:
        raise UserError(f"the metadata directory rebuilt for the reveal is {root}, not the recorded "
                        f"{record.metadata_root}; run `mintprep run` first")
    manifest = pin_bytes(ledger, ws.backend, ws.profile, ledger.objects.get(record.manifest_sha256), kind="manifest",
                         name=f"{col.spec.symbol}-manifest")
    if not released(ledger):
        ledger.record_chain_tx(RELEASED_KIND, 0, "", "", {"metadata_root": root, "manifest_cid": manifest.cid,
                                                          "backend": ws.backend.ledger_key})
    return root


def release_and_check(ws: Workspace, target: RevealTarget) -> None:
    """Release the withheld metadata, then the gates every base-URI change passes: the root is held by a public
    service (on a non-loopback chain) and serves every minted token."""
    from mintprep.chain import check_base_uri_change, live_drop_for, require_public_root

    root = release_metadata(ws)
    _, url = ws.spec.chain.endpoint()
    require_public_root(ws.col, ws.ledger, url, root)
    live = live_drop_for(ws, fresh=True)  # after the reveal's transactions
    assert live is not None
    # Before the reveal no token shows a document of its own: the gate still proves the root whole and recorded.
    check_base_uri_change(ws.ledger, live.base_uri, root, live.minted_files, ws.backend.fetch_block)


def reveal_collection(ws: Workspace, signer: LocalAccount, *, redraw: bool = False,
                      on_block: Callable[[int, int], None] = lambda head, target: None) -> RevealResult:
    """Release the real metadata, reveal the drop from wherever it stands (recording each transaction), then rebuild
    the page: its gallery and metadata root were left out until now."""
    from dataclasses import replace

    from mintprep.stages import page_stage

    target = reveal_target(ws, signer)
    if target.reveal.state().step != RevealStep.DONE:
        release_and_check(ws, target)
    ledger = ws.ledger

    def record(label: str, tx_hash: str) -> None:
        ledger.record_chain_tx("reveal", target.chain_id, target.address, tx_hash, {"step": label})
        fault_point(f"reveal-tx-{label}")  # a test's kill: a rerun finishes from the chain's state (base.faults)

    reveal = target.reveal
    result = run_reveal(reveal.w3, signer, target.address, reveal.secret, reveal.base_uri, reveal.contract_uri,
                        mine=target.mine, redraw=redraw, on_block=on_block, on_sent=record)
    return replace(result, page=page_stage(ws)[0])


def planned_reveal(ws: Workspace, signer: LocalAccount) -> list[PlannedTx]:
    """`reveal --print`: the transactions still needed, from the chain's state; nothing is sent. The real metadata
    is released first, since the printed reveal points the contract at it."""
    target = reveal_target(ws, signer)
    state = target.reveal.state()
    if state.step != RevealStep.DONE:
        release_and_check(ws, target)
    return target.reveal.planned(state)


def reveal_drop(col: "Collection", keystore: Path | None, ask_password: Callable[[], str] | None, *,
           redraw: bool = False, on_block: Callable[[int, int], None] = lambda head, target: None) -> RevealResult:
    """`reveal_collection` with the key the user gave (`ask_password`: the keystore's password when the environment
    has none; None refuses)."""
    from mintprep.chain import load_signer

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return reveal_collection(ws, signer, redraw=redraw, on_block=on_block)


def planned_reveal_txs(col: "Collection", keystore: Path | None,
                       ask_password: Callable[[], str] | None) -> list[PlannedTx]:
    """`planned_reveal` with the key the user gave: each transaction the reveal still needs, unsent."""
    from mintprep.chain import load_signer

    signer = load_signer(keystore, ask_password)
    with Workspace.open(col) as ws:
        return planned_reveal(ws, signer)
