"""Pointing the drop at newly pinned metadata: setBaseURI(base, contractURI), sent here or printed for a multisig;
and the one rule every change of what is published passes first (`check_base_uri_change`).

Both URIs move together: collection.json (ERC-7572 contractURI) lives in the same metadata directory.

The rule: a minted token's metadata document stays byte-identical — and so does its image, whose CID the document
names — unless the user passed `--include-minted` to that command. Documents are compared, not file names: a new
root that merely has `<id>.json` for every minted id may still show a sold token different art.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from eth_account.signers.local import LocalAccount
from web3 import Web3

from mintprep.base import summarise_ids, NotRevealed, UserError
from mintprep.chain.artifact import load_artifact
from mintprep.chain.rpc import connect, require_chain
from mintprep.state import Ledger, deployed_address, require_recorded_base_uri
from mintprep.chain.live_drop import live_drop_for
from mintprep.chain.public_roots import require_public_root
from mintprep.chain.txs import send_call
from mintprep.collection import base_uri_for, contract_uri_for, token_file_name
from mintprep.ipfs import BlockFetcher, Unreadable, ipfs_path, list_directory, read_file, verify_dag

if TYPE_CHECKING:
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

    `current` must be one this ledger recorded; the new directory must verify and hold a document for every minted
    file; and, unless `include_minted`, each of those documents must be byte-identical to the live one."""
    require_recorded_base_uri(ledger, current)
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
    """The call that sets the base URI: what a multisig or hardware wallet needs to send it."""

    chain_id: int
    to: str
    data: str
    value: int
    base_uri: str
    contract_uri: str
    tx_hash: str | None = None  # set once mintprep itself sent it

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def base_uri_update(chain_id: int, address: str, base_uri: str, contract_uri: str) -> BaseUriUpdate:
    drop = Web3().eth.contract(address=Web3.to_checksum_address(address), abi=load_artifact().abi)
    data = drop.encode_abi("setBaseURI", [base_uri, contract_uri])
    return BaseUriUpdate(chain_id, drop.address, data, 0, base_uri, contract_uri)


def send_set_base_uri(w3: Web3, signer: LocalAccount, address: str, base_uri: str, contract_uri: str) -> str:
    """Send setBaseURI and return the transaction hash (simulated first: a non-owner key fails before sending)."""
    drop = w3.eth.contract(address=address, abi=load_artifact().abi)
    receipt = send_call(w3, signer, drop.functions.setBaseURI(base_uri, contract_uri), "setBaseURI")
    return receipt["transactionHash"].to_0x_hex()


def collection_base_uri_update(ws: "Workspace", *, include_minted: bool = False) -> tuple[BaseUriUpdate, str]:
    """The setBaseURI call for the ledger's current metadata root, and the RPC URL to send it through.

    Every base-URI change mintprep makes or prints passes `check_base_uri_change` here."""
    col, ledger = ws.col, ws.ledger
    network, url = col.spec.chain.endpoint()
    manifest = ledger.current_manifest()
    if manifest is None:
        raise UserError(f"{col.path}: no metadata pinned yet; run `mintprep run` before setting the base URI")
    address = deployed_address(col, ledger, network)
    root = manifest.metadata_root
    update = base_uri_update(network.chain_id, address, base_uri_for(root), contract_uri_for(root))
    live = live_drop_for(ws)  # read right before the transaction by the command that sends it
    assert live is not None  # deployed_address found the contract
    if not live.revealed:  # first: a hidden drop's root is still in the local store, which is not the reason
        raise NotRevealed(f"{col.path}: chain.reveal is set and the drop is not revealed yet: the base URI is set by "
                          "`mintprep reveal` (setting it earlier would show the art before the reveal)")
    require_public_root(col, ledger, url, root)  # never aim a public chain at CIDs only this machine holds
    if live.base_uri != update.base_uri:
        check_base_uri_change(ledger, live.base_uri, root, live.minted_files, ws.backend.fetch_block,
                              include_minted=include_minted)
    return update, url


def send_collection_base_uri(ws: "Workspace", signer: LocalAccount, *, include_minted: bool = False
                             ) -> BaseUriUpdate:
    """Point the collection's contract at the current metadata root; the command driver records the transaction."""
    planned, url = collection_base_uri_update(ws, include_minted=include_minted)
    w3 = connect(url)
    require_chain(w3, ws.spec.chain.endpoint()[0])
    return replace(planned, tx_hash=send_set_base_uri(w3, signer, planned.to, planned.base_uri, planned.contract_uri))
