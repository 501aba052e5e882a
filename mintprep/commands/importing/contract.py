"""The contract reader: the contract's family and roles (its profile, mintprep.chain.profile), its minted ids and
every id it serves (max supply, next id, batches), base URI or per-token URIs read over RPC; every minted token read and verified first, one at a time (each must be
readable before anything is written), then every token read again as the import records it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import replace

from mintprep.base import UserError
from mintprep.commands.importing.ipfs_root import read_ipfs_root, read_tokens
from mintprep.commands.importing.tokens import ImportPlan, TokenRead, require_minted
from mintprep.ipfs import CID, BlockFetcher, Unreadable, ipfs_path, resolve
from mintprep.state import Workspace


def read_contract(ws: Workspace, plan: ImportPlan, fetch: BlockFetcher) -> Iterator[TokenRead]:
    """The contract's profile (declared, verified ABI or runtime code), its minted ids, and what each token the
    contract serves resolves to (ids from its max supply, next id or batches): every minted token read and verified
    before this returns (UserError naming those lacking), then every token read as the returned iterator is
    consumed."""
    from mintprep.chain import RPC_FAILURES, connect, open_contract, read_each, require_chain
    from mintprep.net import redact_url

    configured = ws.spec.chain.contract
    if configured and configured.lower() != plan.source.text.lower():
        raise UserError(f"--from {plan.source.text}: chain.contract in {ws.col.path.name} names another contract "
                        f"({configured})")
    network, url = ws.spec.chain.endpoint()
    w3 = connect(url)
    try:
        # a node for another chain answers for another contract: checked before any read
        family = open_contract(ws.col, w3, plan.source.text, require_chain(w3, network))
        plan.profile = family.profile.to_json()
        plan.minted = family.minted_ids()
        plan.base_uri = family.base_uri(plan.minted)
        plan.owner = family.owner()
        wanted = family.served_ids(plan.minted, ws.spec.size)
        if family.token_suffix is None:  # per-token URIs: each minted token's own
            token_uris, plan.unserved = read_each(plan.minted, family.token_uri, "tokenURI")
        elif plan.base_uri is None and family.profile.uri_form == "batches":  # batches with bases of their own
            token_uris = {t: uri for t in wanted if (uri := family.uri_of(None, t)) is not None}
        else:
            token_uris = {}
    except UserError as exc:
        raise UserError(f"--from {plan.source.text} on {network.name}: {exc}") from None
    except RPC_FAILURES as exc:
        raise UserError(f"--from {plan.source.text}: cannot read its minted tokens and URIs through "
                        f"{redact_url(url)} ({type(exc).__name__})") from None
    plan.contract, plan.chain_id, plan.family = family.address, network.chain_id, family.name
    if token_uris:  # each token read from its own URI
        plan.token_suffix = family.token_suffix or ""
        plan.uri_roots = sorted({str(p[0]) for p in map(ipfs_path, token_uris.values()) if p and p[1]})
        # an encrypted (delayed-reveal) batch's: no URI to read; a token whose tokenURI failed is read (and
        # skipped) with its own reason
        hidden = [t for t in wanted if t not in token_uris and t not in plan.unserved]
        plan.skipped.update({t: "its batch is encrypted (delayed reveal): it shows a placeholder until revealed; "
                                "import again after the reveal" for t in hidden})
        return _minted_first(plan, functools.partial(_read_token_uris, ws, token_uris, fetch=fetch),
                             [t for t in wanted if t in token_uris or t in plan.unserved])
    if family.token_suffix is None:
        return _minted_first(plan, functools.partial(_read_token_uris, ws, token_uris, fetch=fetch), plan.minted)
    plan.token_suffix = family.token_suffix
    if plan.base_uri is None:
        raise UserError(f"--from {plan.source.text}: its tokens' URIs show no base URI (not revealed yet, or nothing "
                        "minted); import its ipfs:// metadata root instead")
    if ipfs_path(plan.base_uri) is None:
        raise UserError(f"--from {plan.source.text}: its base URI {plan.base_uri!r} is not an IPFS address; "
                        "import reads metadata trustlessly from IPFS only")
    return _minted_first(plan, functools.partial(read_ipfs_root, ws, plan.base_uri, fetch=fetch), wanted)


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
