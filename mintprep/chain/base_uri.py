"""Pointing the collection's contract at newly pinned metadata through its own setter (MintprepDrop's
setBaseURI(base, contractURI), HashLips' setUriPrefix, thirdweb's updateBatchBaseURI, Zora's renderer, Manifold's
setBaseTokenURI: the calls come from the contract's profile), sent here or printed for a multisig; and the one rule
every change of what is published passes first (`check_base_uri_change`).

collection.json (ERC-7572 contractURI) lives in the same metadata directory: a setter that takes it moves it too.

The rule: a minted token's metadata document stays byte-identical — and so does its image, whose CID the document
names — unless the user passed `--include-minted` to that command. Documents are compared, not file names: a new
root that merely has `<id>.json` for every minted id may still show a sold token different art.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from eth_account.signers.local import LocalAccount

from mintprep.base import summarise_ids, NotRevealed, UserError
from mintprep.chain.profile.contract import ContractCall
from mintprep.chain.profile.live import read_live
from mintprep.chain.profile.update import metadata_calls
from mintprep.state import Ledger, require_recorded_base_uri
from mintprep.chain.live_drop import LiveDrop, live_drop_for
from mintprep.chain.public_roots import require_public_root
from mintprep.chain.txs import send_call
from mintprep.collection import base_uri_for, contract_uri_for, token_file_name
from mintprep.ipfs import BlockFetcher, Unreadable, ipfs_path, list_directory, read_file, verify_dag

if TYPE_CHECKING:
    from mintprep.chain.profile.live import LiveState
    from mintprep.state import Workspace

FileName = Callable[[int], str]  # metadata file id -> its name (MintprepDrop's "<id>.json"; ERC721A's is `str`)


def kept_documents(base_uri: str, files: Iterable[int], fetch_block: BlockFetcher,
                   file_name: FileName = token_file_name) -> dict[int, bytes]:
    """The bytes each of `files` (the metadata file ids minted tokens show) has under `base_uri` now: what the next
    root must carry unchanged. Empty when `base_uri` names no IPFS directory (nothing published there yet).

    UserError when a live document cannot be read from verified blocks: it cannot then be proven unchanged."""
    parsed = ipfs_path(base_uri)
    files = sorted(set(files))
    if parsed is None or not files:
        return {}
    root, segments = parsed
    if segments:
        raise UserError(f"the base URI {base_uri!r} names a path inside {root}; mintprep publishes whole directories")
    kept = {}
    try:
        names = list_directory(root, fetch_block)
        for file_id in files:
            name = file_name(file_id)
            if name not in names:
                continue  # no live document to keep (a minted token that shows nothing): the existence check names it
            kept[file_id] = read_file(names[name], fetch_block)
    except Unreadable as exc:
        raise UserError(f"cannot read the live metadata under {base_uri} to keep minted tokens unchanged: {exc} "
                        "(run `mintprep audit`; pass --include-minted to replace them knowingly)") from None
    return kept


def check_base_uri_change(ledger: Ledger, current: str, new_root: str, minted_files: Iterable[int],
                          fetch_block: BlockFetcher, *, include_minted: bool = False,
                          file_name: FileName = token_file_name) -> None:
    """UserError (nothing sent) unless moving the base URI from `current` to `ipfs://new_root/` is safe.

    `current` must be one this ledger recorded; then `check_minted_kept`."""
    require_recorded_base_uri(ledger, current)
    check_minted_kept(current, new_root, minted_files, fetch_block, include_minted=include_minted, file_name=file_name)


def check_minted_kept(current: str, new_root: str, minted_files: Iterable[int], fetch_block: BlockFetcher, *,
                      include_minted: bool = False, file_name: FileName = token_file_name) -> None:
    """UserError unless the directory `new_root` verifies and holds a document for every minted file and, unless
    `include_minted`, each of those documents is byte-identical to the one under `current`."""
    refuse = f"refusing to set the base URI to ipfs://{new_root}/"
    walk = verify_dag(new_root, fetch_block)
    if not walk.ok:
        raise UserError(f"{refuse}: {walk.describe()}")
    minted_files = sorted(set(minted_files))
    try:
        names = list_directory(new_root, fetch_block)
        lacking = [t for t in minted_files if file_name(t) not in names]
        if lacking:
            raise UserError(f"{refuse}: it has no metadata for minted token(s) {summarise_ids(lacking)}")
        if include_minted:
            return
        live = kept_documents(current, minted_files, fetch_block, file_name)
        changed = [t for t, data in live.items() if read_file(names[file_name(t)], fetch_block) != data]
    except Unreadable as exc:
        raise UserError(f"{refuse}: {exc}") from None
    if changed:
        raise UserError(f"{refuse}: it changes the metadata of minted token(s) {summarise_ids(changed)} "
                        "(what their owners hold); pass --include-minted to replace them knowingly")


@dataclass(frozen=True)
class BaseUriUpdate:
    """The calls that point the collection's contract at a metadata root, made through its profile (the family's
    own setter: mintprep.chain.profile.update `metadata_calls`): what a multisig or hardware wallet needs to send
    them. No calls: the contract already shows that root."""

    chain_id: int
    to: str  # the collection's contract (Zora's setter is sent to its renderer: each call names its own `to`)
    family: str
    base_uri: str
    contract_uri: str
    calls: tuple[ContractCall, ...]
    tx_hashes: tuple[str, ...] = ()  # set once mintprep itself sent them, one per call

    @property
    def tx_hash(self) -> str | None:
        return self.tx_hashes[-1] if self.tx_hashes else None

    def to_json(self) -> dict[str, Any]:
        return {"chain_id": self.chain_id, "to": self.to, "family": self.family, "base_uri": self.base_uri,
                "contract_uri": self.contract_uri, "calls": [call.to_json() for call in self.calls],
                "tx_hash": self.tx_hash, "tx_hashes": list(self.tx_hashes)}


def collection_base_uri_update(ws: "Workspace", *, include_minted: bool = False,
                               replaced: Iterable[int] | None = None) -> BaseUriUpdate:
    """The calls that point the contract at the ledger's current metadata root (`replaced`: only what a repair of
    those tokens needs; None: everything `contract set-base-uri` moves), read from the chain right before they are
    sent.

    Every base-URI change mintprep makes or prints passes `check_base_uri_change` here. UserError naming the
    family's setter when its admin has none to call (missing, frozen, renounced): nothing is sent."""
    col, ledger = ws.col, ws.ledger
    network, url = col.spec.chain.endpoint()
    record = ledger.current_manifest()
    if record is None:
        raise UserError(f"{col.path}: no metadata pinned yet; run `mintprep run` before setting the base URI")
    root = record.metadata_root
    live = read_live(ws, fresh=True)  # the minted-token gate: who holds what right before a transaction
    drop = live_drop_for(ws)
    assert drop is not None  # read_live found the contract
    if not drop.revealed:  # first: a hidden drop's root is still in the local store, which is not the reason
        raise NotRevealed(f"{col.path}: chain.reveal is set and the drop is not revealed yet: the base URI is set by "
                          "`mintprep reveal` (setting it earlier would show the art before the reveal)")
    calls = metadata_calls(live, record.manifest, replaced)
    contract = live.family
    if calls is None:
        raise UserError(f"the contract {contract.address} ({contract.name}) cannot be pointed at ipfs://{root}/ by "
                        f"its admin ({contract.missing_setter()}); nothing was sent")
    update = BaseUriUpdate(network.chain_id, contract.address, contract.name, base_uri_for(root),
                           contract_uri_for(root), tuple(calls))
    if calls:
        require_public_root(col, ledger, url, root)  # never aim a public chain at CIDs only this machine holds
        _check_calls(ws, live, drop, update, include_minted)
    return update


def _check_calls(ws: "Workspace", live: "LiveState", drop: LiveDrop, update: BaseUriUpdate,
                 include_minted: bool) -> None:
    """`check_base_uri_change` for each base the calls move away from (one base; each moved thirdweb batch with
    its own sold tokens); for per-token URIs, a sold token's URI changes only with `include_minted`."""
    root = update.base_uri.removeprefix("ipfs://").rstrip("/")
    file_name = partial(token_file_name, suffix=drop.token_suffix)
    if live.base_uri is not None:
        check_base_uri_change(ws.ledger, live.base_uri, root, drop.minted_files, ws.backend.fetch_block,
                              include_minted=include_minted, file_name=file_name)
    for call in update.calls:
        if call.role == "set_batch_base_uri":  # its base formed the token URIs the import recorded, one by one
            batch = live.family.batches()[call.args[0]]
            check_minted_kept(str(batch.base), root, [t for t in live.minted if batch.start <= t < batch.end],
                              ws.backend.fetch_block, include_minted=include_minted, file_name=file_name)
    changed = sorted({call.args[0] for call in update.calls if call.role == "set_token_uri"} & set(live.minted))
    if changed and not include_minted:
        raise UserError(f"refusing to set new token URIs for ipfs://{root}/: it changes the metadata of minted "
                        f"token(s) {summarise_ids(changed)} (what their owners hold); pass --include-minted to "
                        "replace them knowingly")


def send_collection_base_uri(ws: "Workspace", signer: LocalAccount, update: BaseUriUpdate) -> BaseUriUpdate:
    """Send `update`'s calls (each simulated first: a key that is not the admin fails before sending); the command
    driver records them."""
    live = read_live(ws)
    sent = []
    for call in update.calls:
        sent.append(send_call(live.family.w3, signer, call.bound, call.function)["transactionHash"].to_0x_hex())
    live.stale = True  # the URIs changed: the next read reads them again
    return replace(update, tx_hashes=tuple(sent))
