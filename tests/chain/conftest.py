"""Chain-test fixtures: a real anvil node (tests.support.anvil) and collections that point at it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eth_account.signers.local import LocalAccount

from mintprep.chain.deploy import Deployed
from mintprep.commands.contract import deploy_contract
from mintprep.collection.config import Collection, load_collection
from mintprep.base.hashing import canonical_json
from mintprep.state.ledger import Ledger
from mintprep.collection.manifest import Manifest, base_uri_for, contract_uri_for
from mintprep.state.workspace import Workspace
from tests.conftest import write_collection
from tests.support.anvil import Chain

METADATA_ROOT = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"


def chain_collection(folder: Path, rpc_url: str, **chain: Any) -> Collection:
    """The example collection (size 77, 0.00063 ETH, 5 per wallet) with chain settings for this node."""
    settings = {"network": "base", "rpc_url": rpc_url, "mint_price": "0.00063", "max_per_wallet": 5, **chain}
    return load_collection(write_collection(folder, chain={k: v for k, v in settings.items() if v is not None}))


def record_metadata_root(col: Collection, metadata_root: str) -> None:
    """Record a pinned manifest the way the manifest stage does (object stored first, then the row)."""
    manifest = Manifest(name=col.spec.name, symbol=col.spec.symbol, description=col.spec.description,
                        size=col.spec.size, metadata_root=metadata_root, base_uri=base_uri_for(metadata_root),
                        contract_uri=contract_uri_for(metadata_root), provenance_hash="0" * 64,
                        ipfs_profile=col.spec.ipfs.profile)
    with Ledger.open(col.state_dir) as ledger:
        digest = ledger.objects.put(manifest.encode())
        ledger.record_manifest(metadata_root=metadata_root, manifest_cid="bafkreimanifest" + metadata_root[-8:],
                               manifest_sha256=digest, provenance_hash="0" * 64)


def pin_metadata_root(col: Collection, label: str) -> str:
    """Pin a real metadata directory (token 1 and collection.json) in the local store and record it; return its
    root. `set-base-uri` only points a contract at a directory that resolves and verifies."""
    from mintprep.ipfs.backends.local import LocalBackend
    from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory

    profile = get_profile(col.spec.ipfs.profile)
    files = {name: import_bytes(canonical_json({"name": f"{label} {name}"}), profile)
             for name in ("1.json", "collection.json")}
    root = LocalBackend(col.state_dir).pin_dag(import_directory(files, profile), name=label).cid
    record_metadata_root(col, root)
    return root


@dataclass(frozen=True)
class DeployedCollection:
    col: Collection
    deployed: Deployed
    chain: Chain

    def with_chain(self, **changes: Any) -> Collection:
        """The same collection folder (same ledger) with chain settings changed; contract stays unless changed."""
        changes.setdefault("contract", self.deployed.address)
        rpc_url = changes.pop("rpc_url", self.chain.node.url)
        return chain_collection(self.col.base_dir, rpc_url, **changes)

    def with_spec(self, **changes: Any) -> Collection:
        """The same folder with top-level keys changed (write_collection's `a__b` form) and this chain section."""
        chain_section = self.col.spec.chain.model_dump(exclude_none=True)
        return load_collection(write_collection(self.col.base_dir, chain=chain_section, **changes))


def deploy_for(col: Collection, signer: LocalAccount) -> Deployed:
    with Workspace.open(col) as ws:
        return deploy_contract(ws, signer)


@pytest.fixture
def deployed_collection(chain: Chain, tmp_path: Path) -> DeployedCollection:
    """Metadata pinned, then the drop deployed by mintprep with the config's values; chain.contract set."""
    col = chain_collection(tmp_path / "col", chain.node.url)
    record_metadata_root(col, METADATA_ROOT)
    deployed = deploy_for(col, chain.owner)
    col = chain_collection(col.base_dir, chain.node.url, contract=deployed.address)
    return DeployedCollection(col=col, deployed=deployed, chain=chain)
