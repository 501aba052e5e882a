"""The contract reader: the contract's family (detected from the chain, mintprep.chain.families), its minted ids,
base URI or per-token URIs read over RPC; every minted token read and verified first, one at a time (each must be
readable before anything is written), then every token read again as the import records it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import replace

from mintprep.base.errors import UserError
from mintprep.commands.importing.ipfs_root import read_ipfs_root, read_tokens
from mintprep.commands.importing.tokens import ImportPlan, TokenRead, require_minted
from mintprep.ipfs import CID, BlockFetcher, Unreadable, ipfs_path, resolve
from mintprep.state.workspace import Workspace


def read_contract(ws: Workspace, plan: ImportPlan, fetch: BlockFetcher) -> Iterator[TokenRead]:
    """The contract's family (detected from the chain), its minted ids, and what each token's URI serves: every
    minted token read and verified before this returns (UserError naming those lacking), then every token read as
    the returned iterator is consumed."""
    from mintprep.chain.families import detect_family
    from mintprep.chain.reads import read_each
    from mintprep.chain.rpc import RPC_FAILURES, connect, require_chain
    from mintprep.net.urls import redact_url

    configured = ws.spec.chain.contract
    if configured and configured.lower() != plan.source.text.lower():
        raise UserError(f"--from {plan.source.text}: chain.contract in {ws.col.path.name} names another contract "
                        f"({configured})")
    network, url = ws.spec.chain.endpoint()
    w3 = connect(url)
    require_chain(w3, network)  # a node for another chain answers for another contract: checked before any read
    try:
        family = detect_family(w3, plan.source.text)
        plan.minted = family.minted_ids()
        plan.base_uri = family.base_uri(plan.minted)
        plan.owner = family.owner()
        token_uris, plan.unserved = read_each(plan.minted, family.token_uri, "tokenURI") \
            if family.token_suffix is None else ({}, {})
    except UserError as exc:
        raise UserError(f"--from {plan.source.text} on {network.name}: {exc}") from None
    except RPC_FAILURES as exc:
        raise UserError(f"--from {plan.source.text}: cannot read its minted tokens and URIs through "
                        f"{redact_url(url)} ({type(exc).__name__})") from None
    plan.contract, plan.chain_id, plan.family = family.address, network.chain_id, family.name
    if family.token_suffix is None:  # per-token URIs: each minted token read from its own
        return _minted_first(plan, functools.partial(_read_token_uris, ws, token_uris, fetch=fetch), plan.minted)
    plan.token_suffix = family.token_suffix
    if plan.base_uri is None:
        raise UserError(f"--from {plan.source.text}: its tokens' URIs show no base URI (not revealed yet, or nothing "
                        "minted); import its ipfs:// metadata root instead")
    if ipfs_path(plan.base_uri) is None:
        raise UserError(f"--from {plan.source.text}: its base URI {plan.base_uri!r} is not an IPFS address; "
                        "import reads metadata trustlessly from IPFS only")
    first = family.first_id(plan.minted)
    return _minted_first(plan, functools.partial(read_ipfs_root, ws, plan.base_uri, fetch=fetch),
                         sorted(set(range(first, first + ws.spec.size)) | set(plan.minted)))


def _minted_first(plan: ImportPlan, read: Callable[..., Iterator[TokenRead]], wanted: list[int]) -> Iterator[TokenRead]:
    """`read(plan, wanted)` once `read` has read every minted token, one at a time into a scratch plan, without a
    lacking one: reading the whole contract into a list for that check held every image of it at once."""
    check = replace(plan, tokens=[], skipped={})  # its caches (blocks, listings) shared: the reads below reuse them
    for _ in read(check, plan.minted, task="check minted"):
        pass
    require_minted(check)
    return read(plan, wanted)


def _read_token_uris(ws: Workspace, token_uris: dict[int, str], plan: ImportPlan, wanted: list[int], *,
                     fetch: BlockFetcher, task: str = "import") -> Iterator[TokenRead]:
    plan.token_uris = token_uris

    def locate(token_id: int) -> CID | str:
        if token_id not in token_uris:  # the contract answers no URI for it: nothing published to keep
            return plan.unserved[token_id]
        uri = token_uris[token_id]
        try:
            metadata_cid = resolve(uri, fetch, plan.listings)
        except Unreadable as exc:
            return f"tokenURI {uri} unreadable: {exc}"
        return f"tokenURI {uri!r} is not an IPFS address" if metadata_cid is None else metadata_cid

    yield from read_tokens(ws, plan, sorted(wanted), locate, fetch, task)
