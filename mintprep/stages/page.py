"""The page stage: the chain gate (the page is not built for a contract that disagrees with the config) and the
collection's mint page built from the ledger's manifest (mintprep.page) for the contract's own mint call, and
published where the config says, its place recorded. A page that could not mint on the contract is neither built
nor published (mintprep.page.mint_call.PageCannotMint): `run`, `serve` and `publish` refuse alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mintprep.state import Workspace

if TYPE_CHECKING:
    from mintprep.ipfs import DagImport
    from mintprep.page import PublishResult


@dataclass(frozen=True)
class ChainGate:
    check: dict[str, Any] | None  # `mintprep check`'s report, when there is a contract to check
    blocked: str | None  # why the page is not built; None: build it


def chain_gate(ws: Workspace) -> ChainGate:
    """The page is not built for a contract that disagrees with the config (the other stages stand): its gallery
    would show a metadata root the contract does not serve.

    A collection with no contract yet (none configured, none deployed) has nothing to drift from.
    """
    if ws.deployed_contract() is None:
        return ChainGate(None, None)  # decided without web3, which takes seconds to import: a no-op rerun stays quick
    from mintprep.chain import check_collection

    check = check_collection(ws.col, ws.ledger, costs=False)  # the gate needs the rows; `check` shows the cost
    blocked = None if check.ok else "contract disagrees with collection.yaml: " + ", ".join(check.mismatches)
    return ChainGate(check.to_json(), blocked)


def page_stage(ws: Workspace, blocked: str | None = None) -> tuple[str | None, str | None]:
    """(the built page's index.html, None), or (None, why not): the page could not mint on the contract (the rule
    `serve` and `publish` refuse by, said first), or `blocked` (the chain gate's reason)."""
    from mintprep.base import PageCannotMint
    from mintprep.page import build_collection_page, collection_page_inputs, live_profile

    try:
        inputs = collection_page_inputs(ws.col, ws.ledger, profile=live_profile(ws))
    except PageCannotMint as exc:
        return None, str(exc)
    if blocked is not None:
        return None, blocked
    return str(build_collection_page(ws.col, inputs).index), None


def publish_page(ws: Workspace, **http: Any) -> PublishResult:
    """`http` (policy=RetryPolicy, sleep=callable) tunes retries of remote targets."""
    from mintprep.page import publish_collection

    inputs, result = publish_collection(ws, lambda files, digest: pin_site(ws, files, digest), **http)
    # "": a hidden drop's page, built without its metadata root; audit calls it stale once the drop is revealed.
    ws.ledger.record_publish(result.target, result.location, result.site_cid, inputs.manifest["metadata_root"] or "",
                             inputs.contract)
    return result


def pin_site(ws: Workspace, files: Mapping[str, bytes], site_digest: str) -> str:
    """Pin the site folder on the collection's IPFS backend (verified like every pin, recorded); return its CID."""
    from mintprep.ipfs import import_bytes, import_directory
    from mintprep.stages.pin import pin_content

    profile = ws.profile

    def site_dag() -> DagImport:
        tree: dict[str, Any] = {}
        for rel, data in sorted(files.items()):
            *folders, name = rel.split("/")
            node = tree
            for folder in folders:
                node = node.setdefault(folder, {})
            node[name] = import_bytes(data, profile)
        return import_directory(tree, profile)

    outcome = pin_content(ws.ledger, ws.backend, profile, content_sha256=site_digest, make_dag=site_dag,
                          kind="site", name=f"{ws.spec.symbol}-site")
    return outcome.cid
