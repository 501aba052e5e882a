"""The fair reveal: a secret committed at deploy, mixed at reveal with the hash of a block nobody knew in advance.

Pure core: `reveal_secret` / `reveal_commitment` / `starting_offset` / `revealed_images` compute exactly what the
contract computes; `run_reveal` sends startReveal, waits REVEAL_DELAY blocks and sends reveal.

The secret is derived from the deploying key (keccak of its deterministic RFC 6979 signature over a fixed
message naming the chain and the provenance hash), so nothing secret is ever written to disk or the ledger,
and the same key finds it again at reveal.
"""

from __future__ import annotations

import functools
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from eth_abi import encode
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount
from eth_utils import keccak
from web3 import Web3

from mintprep.chain.artifact import load_artifact
from mintprep.chain.txs import send_call
from mintprep.base.errors import ConfigError, UserError
from mintprep.base.untrusted_files import read_regular_file

if TYPE_CHECKING:
    from mintprep.state.workspace import Workspace

BLOCK_POLL_S = 0.5


def reveal_secret(signer: LocalAccount, chain_id: int, provenance_hash: str) -> bytes:
    message = encode_defunct(text=f"mintprep reveal secret v1\nchain {chain_id}\nprovenance {provenance_hash}")
    return keccak(signer.sign_message(message).signature)


def reveal_commitment(secret: bytes) -> bytes:
    """keccak256(abi.encode(secret)), what the contract compares the opened secret with."""
    return keccak(encode(["bytes32"], [secret]))


def starting_offset(secret: bytes, seed: bytes, max_supply: int) -> int:
    """keccak256(abi.encode(secret, seed)) % maxSupply, as MintprepDrop.reveal computes it."""
    return int.from_bytes(keccak(encode(["bytes32", "bytes32"], [secret, seed])), "big") % max_supply


def metadata_id(token_id: int, offset: int, size: int) -> int:
    """The metadata file (and so the image) token `token_id` shows after a reveal with `offset`."""
    return (token_id - 1 + offset) % size + 1


def revealed_images(manifest: Mapping[str, Any], offset: int) -> dict[int, str]:
    """token id -> image CID after the reveal: what `audit` compares with each token's metadata.

    Pure: the manifest lists token files 1..size in order of their art; the offset shifts which one a token shows.
    """
    by_file = {int(t["token_id"]): str(t["image_cid"]) for t in manifest["tokens"]}
    size = int(manifest["size"])
    return {token_id: by_file[metadata_id(token_id, offset, size)] for token_id in range(1, size + 1)
            if metadata_id(token_id, offset, size) in by_file}


def poll_past(w3: Web3, block: int, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while w3.eth.block_number <= block:
        if time.monotonic() > deadline:
            raise UserError(f"block {block} was not mined within {timeout_s:.0f} s; run `mintprep reveal` again")
        time.sleep(BLOCK_POLL_S)


@dataclass(frozen=True)
class RevealResult:
    reveal_block: int
    seed: str
    starting_offset: int
    base_uri: str
    tx_hashes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def run_reveal(w3: Web3, signer: LocalAccount, address: str, secret: bytes, base_uri: str, contract_uri: str,
               *, wait_past: Callable[[Web3, int], None] | None = None) -> RevealResult:
    """startReveal (unless a draw is pending), wait past its block, then reveal(secret, base, contractURI).

    `wait_past(w3, block)` returns once `block` is mined (default: poll the node for up to two minutes).
    """
    drop = w3.eth.contract(address=address, abi=load_artifact().abi)
    views = drop.functions
    if views.revealed().call():
        raise UserError(f"{address} is already revealed (offset {views.startingOffset().call()})")
    if views.revealCommitment().call() != reveal_commitment(secret):
        raise UserError(f"{address}: this key's reveal secret does not open the commitment on chain; "
                        "reveal with the key that deployed the contract")
    sent = []
    target = views.revealBlock().call()
    pending = views.revealSeed().call() != b"\x00" * 32 or (target and w3.eth.block_number <= target + 256)
    if not pending:
        sent.append(send_call(w3, signer, views.startReveal(), "startReveal")["transactionHash"].to_0x_hex())
        target = views.revealBlock().call()
    (wait_past or poll_past)(w3, target)
    sent.append(send_call(w3, signer, views.reveal(secret, base_uri, contract_uri), "reveal")["transactionHash"].to_0x_hex())
    return RevealResult(target, "0x" + views.revealSeed().call().hex(), views.startingOffset().call(), base_uri,
                        tuple(sent))


def placeholder_metadata(name: str, description: str, image_cid: str) -> dict[str, Any]:
    """The one token JSON every token shows before the reveal (pure)."""
    return {"name": f"{name} (unrevealed)", "description": description, "image": f"ipfs://{image_cid}"}


def placeholder_uri(ws: "Workspace") -> str:
    """chain.reveal's placeholder URI: the configured one, or the image and its JSON pinned (by the pin stage)
    like the rest."""
    from mintprep.base.hashing import canonical_json
    from mintprep.stages.pin import pin_bytes

    col = ws.col
    settings = col.spec.chain.reveal
    assert settings is not None
    if settings.placeholder_uri:
        return settings.placeholder_uri
    path = col.base_dir / str(settings.placeholder_image)
    try:
        image = read_regular_file(path, within=col.base_dir, what="placeholder image")
    except UserError as exc:
        raise ConfigError(f"chain.reveal.placeholder_image: {exc}", field="chain.reveal.placeholder_image") from None
    pin = functools.partial(pin_bytes, ws.ledger, ws.backend, ws.profile)
    image_cid = pin(image, kind="placeholder-image", name=path.name).cid
    document = canonical_json(placeholder_metadata(col.spec.name, col.spec.description, image_cid))
    return "ipfs://" + pin(document, kind="placeholder", name="placeholder.json").cid


def reveal_collection(ws: "Workspace", signer: LocalAccount) -> tuple[int, str, RevealResult]:
    """Reveal the collection's drop at the ledger's current metadata root; (chain id, address, result), which the
    command driver records."""
    from mintprep.chain.rpc import require_chain
    from mintprep.chain.address import deployed_address
    from mintprep.collection.manifest import base_uri_for, contract_uri_for
    from mintprep.chain.rpc import connect
    from mintprep.chain.base_uri import check_base_uri_change
    from mintprep.chain.minted import read_live_drop
    from mintprep.chain.public_roots import require_public_root

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
    live = read_live_drop(col, ledger)
    assert live is not None
    require_public_root(col, ledger, url, root)
    # Before the reveal no token shows a document of its own: the gate still proves the root whole and recorded.
    check_base_uri_change(ledger, live.base_uri, root, live.minted_files, ws.backend.fetch_block)
    return chain_id, address, run_reveal(w3, signer, address, secret, base_uri_for(root), contract_uri_for(root))
