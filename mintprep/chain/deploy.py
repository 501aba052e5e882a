"""Deploying MintprepDrop with the constructor values a collection file states.

The steps (`deploy_target`, `interrupted_deploy`, `collection_drop_config`, `deploy_drop`) record nothing: the
command driver (mintprep.commands.contract) writes each ledger row between them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import rlp
from eth_account.signers.local import LocalAccount
from web3 import Web3

from mintprep.chain.artifact import Artifact, load_artifact
from mintprep.net import Network
from mintprep.chain.phases import OnChainPhase, collection_phases
from mintprep.chain.public_roots import require_public_root
from mintprep.chain.reveal import reveal_commitment, reveal_secret
from mintprep.chain.rpc import connect, require_chain
from mintprep.chain.txs import send_call
from mintprep.collection import Collection, Placeholders, base_uri_for, contract_uri_for
from mintprep.state import Ledger, ManifestRecord, find_contract
from mintprep.base import UserError

if TYPE_CHECKING:
    from mintprep.state import Workspace


@dataclass(frozen=True)
class DropConfig:
    """The constructor arguments: MintprepDrop.Init's fields in order, then phases and payees."""

    name: str
    symbol: str
    max_supply: int
    base_uri: str
    contract_uri: str
    placeholder_uri: str
    provenance_hash: bytes
    reveal_commitment: bytes
    owner: str
    royalty_receiver: str
    royalty_bps: int
    phases: tuple[OnChainPhase, ...]
    payees: tuple[tuple[str, int], ...]

    def constructor_args(self) -> tuple[Any, ...]:
        init = (self.name, self.symbol, self.max_supply, self.base_uri, self.contract_uri, self.placeholder_uri,
                self.provenance_hash, self.reveal_commitment, self.owner, self.royalty_receiver, self.royalty_bps)
        return (init, [p.as_tuple() for p in self.phases], [a for a, _ in self.payees], [n for _, n in self.payees])


@dataclass(frozen=True)
class Deployed:
    address: str
    tx_hash: str
    chain_id: int
    deployer: str
    gas_used: int
    block_number: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def provenance_bytes(provenance_hash: str | None) -> bytes:
    """The manifest's sha256 hex as the contract's bytes32 (zero when nothing is pinned yet)."""
    return bytes.fromhex(provenance_hash) if provenance_hash else b"\x00" * 32


def deploy_drop(w3: Web3, signer: LocalAccount, config: DropConfig, artifact: Artifact | None = None) -> Deployed:
    """Deploy one MintprepDrop signed by `signer` and wait for it; the caller checks the chain id first."""
    artifact = artifact or load_artifact()
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
    receipt = send_call(w3, signer, factory.constructor(*config.constructor_args()), f"deploying {artifact.contract_name}")
    return Deployed(
        address=receipt["contractAddress"],
        tx_hash=receipt["transactionHash"].to_0x_hex(),
        chain_id=w3.eth.chain_id,
        deployer=signer.address,
        gas_used=receipt["gasUsed"],
        block_number=receipt["blockNumber"],
    )


def drop_config(col: Collection, deployer: str, manifest: ManifestRecord | None,
                reveal_commitment: bytes = b"\x00" * 32, placeholders: Placeholders | None = None) -> DropConfig:
    """Constructor values from collection.yaml and the current manifest; owner, royalty payee and the payout
    default to the deploying account. A hidden drop (`placeholders`) starts without a base URI and with the
    placeholder collection document as contractURI: either real one would show the art before the reveal."""
    chain = col.spec.chain
    owner = chain.owner or deployer
    unrevealed = placeholders is not None
    return DropConfig(
        name=col.spec.name,
        symbol=col.spec.symbol,
        max_supply=col.spec.size,
        base_uri=base_uri_for(manifest.metadata_root) if manifest and not unrevealed else "",
        contract_uri=placeholders.contract_uri if placeholders else
        contract_uri_for(manifest.metadata_root) if manifest else "",
        placeholder_uri=placeholders.token_uri if placeholders else "",
        provenance_hash=provenance_bytes(manifest.provenance_hash if manifest else None),
        reveal_commitment=reveal_commitment,
        owner=owner,
        royalty_receiver=chain.royalty_receiver or owner,
        royalty_bps=chain.royalty_bps,
        phases=tuple(p.on_chain() for p in collection_phases(col)),
        payees=tuple(chain.payouts.items()) or ((owner, 1),),
    )


@dataclass(frozen=True)
class DeployTarget:
    w3: Web3
    network: Network
    chain_id: int


def deploy_target(col: Collection, ledger: Ledger, network_name: str | None, rpc_url: str | None,
                  again: bool, allow_ended_phases: bool = False) -> DeployTarget:
    """The node to deploy through, checked to be the configured chain. Refuses when the collection already has a
    contract on that network (a second deploy costs gas and splits the collection) unless `again`, and when a
    phase has already ended by the chain's clock (nobody could mint in it) unless `allow_ended_phases`."""
    net, url = col.spec.chain.endpoint(network_name, rpc_url)
    existing = find_contract(col, ledger, net.chain_id)
    if existing and not again:
        raise UserError(
            f"{col.path}: a contract for this collection exists on {net.name} at {existing}; "
            "pass --again to deploy another one"
        )
    manifest = ledger.current_manifest()
    if manifest is not None:  # the contract starts pointing at its root (contractURI even when unrevealed)
        require_public_root(col, ledger, url, manifest.metadata_root)
    w3 = connect(url)
    target = DeployTarget(w3, net, require_chain(w3, net))
    if not allow_ended_phases:
        refuse_ended_phases(col, int(w3.eth.get_block("latest")["timestamp"]))
    return target


def collection_drop_config(ws: "Workspace", signer: LocalAccount, chain_id: int,
                           placeholders: Placeholders | None) -> DropConfig:
    """`drop_config` for the ledger's current manifest, with the reveal commitment and the placeholders (a hidden
    drop's, pinned by the caller). When metadata is already pinned the contract starts with its base URI, saving a
    setBaseURI transaction."""
    manifest = ws.ledger.current_manifest()
    commitment = _commitment(ws.col, signer, manifest, chain_id)
    return drop_config(ws.col, signer.address, manifest, commitment, placeholders)


def refuse_ended_phases(col: Collection, now: int) -> None:
    """UserError naming the first phase whose end is at or before `now` (unix seconds, the chain's clock)."""
    for number, phase in enumerate(col.spec.chain.sale_phases()):
        if phase.end_time <= now:
            ended = datetime.fromtimestamp(phase.end_time, timezone.utc).isoformat().replace("+00:00", "Z")
            raise UserError(f"chain.phases.{number} ({phase.name!r}) ended at {ended}, before this deploy: nobody "
                            "could mint in it. Fix its end, or pass --allow-ended-phases to deploy it anyway",
                            field=f"chain.phases.{number}.end")


def _commitment(col: Collection, signer: LocalAccount, manifest: ManifestRecord | None, chain_id: int) -> bytes:
    if col.spec.chain.reveal is None:
        return b"\x00" * 32
    if manifest is None:
        raise UserError(f"{col.path}: chain.reveal needs the provenance hash on chain at deploy; "
                        "run `mintprep run` before deploying")
    return reveal_commitment(reveal_secret(signer, chain_id, manifest.provenance_hash))


def create_address(sender: str, nonce: int) -> str:
    """The address a contract created by `sender` at `nonce` gets (keccak of rlp([sender, nonce]))."""
    return Web3.to_checksum_address(Web3.keccak(rlp.encode([bytes.fromhex(sender[2:]), nonce]))[12:])


def interrupted_deploy(target: DeployTarget, ledger: Ledger) -> Deployed | None:
    """A deploy sent by a run that died before its receipt: the contract to adopt, or a refusal while it may be
    pending; None when there is none."""
    w3, chain_id = target.w3, target.chain_id
    sent = ledger.latest_chain_tx("deploy-sent", chain_id)
    if sent is None or ledger.latest_deployment(chain_id) is not None:
        return None
    if w3.eth.get_code(sent["address"]):
        return Deployed(sent["address"], "", chain_id, sent["deployer"], 0, 0)
    if w3.eth.get_transaction_count(sent["deployer"], "latest") <= sent["nonce"]:
        raise UserError(
            f"a deploy sent earlier from {sent['deployer']} (nonce {sent['nonce']}) has not been mined yet; "
            f"wait for it (it creates {sent['address']}) or pass --again to deploy regardless"
        )
    return None  # that nonce went to another transaction: the earlier deploy never happened
