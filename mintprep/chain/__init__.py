"""The drop contract on Base and any collection's contract read through the adapter for its shape: the compiled
artifact, the deploy steps, setBaseURI and its gate, the fair reveal, sale phases, allowlist files and Merkle trees,
source verification, costs, and `check` (config vs chain). Computes and sends transactions; records nothing.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "allowlist_files": "allowlist_site", "page_allowlist": "allowlist_site",
    "build_artifacts": "artifact", "load_artifact": "artifact",
    "BaseUriUpdate": "base_uri", "check_base_uri_change": "base_uri", "collection_base_uri_update": "base_uri",
    "kept_documents": "base_uri", "send_collection_base_uri": "base_uri",
    "check_collection": "check", "CheckReport": "check", "format_wei": "amounts_text",
    "collection_drop_config": "deploy", "create_address": "deploy", "deploy_drop": "deploy",
    "deploy_target": "deploy", "Deployed": "deploy", "interrupted_deploy": "deploy",
    "LiveState": "profile.live", "read_live": "profile.live",
    "can_update": "profile.update", "metadata_calls": "profile.update",
    "load_signer": "keys", "PRIVATE_KEY_ENV": "keys",
    "read_live_drop": "live_drop",
    "collection_phases": "phases", "SalePhase": "phases",
    "require_public_root": "public_roots",
    "mines_on_demand": "reveal", "PlannedTx": "reveal", "Reveal": "reveal", "reveal_secret": "reveal",
    "RevealResult": "reveal", "RevealStep": "reveal", "run_reveal": "reveal",
    "connect": "rpc", "require_chain": "rpc", "RPC_FAILURES": "rpc",
    "send_call": "txs",
    "verify_collection": "verify", "VerifyOutcome": "verify",
    "live_drop_for": "live_drop",
    "open_contract": "profile.live",
    "read_each": "reads",
    "roles_text": "profile.resolve",
    "rpc_failure_reason": "rpc",
})
