"""The stage layer, the steps the drivers in `commands/` call and fold: generate, validate (and screen), images, pin,
publish (the metadata directory and manifest), page, base_uri, kept_minted, withheld, audit. Each takes what it
needs (a Workspace, or the pieces of it) and returns what it made.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "PUBLISHED": "screen",
    "ART_KINDS": "audit", "audit_workspace": "audit", "AuditReport": "audit", "REPLACE_KINDS": "audit",
    "point_contract_at_current_root": "base_uri",
    "Candidate": "generate", "FailedPiece": "generate", "generate_pieces": "generate", "plan_pieces": "generate",
    "pin_accepted": "images", "pin_images": "images", "restore_object": "images",
    "keep_minted": "kept_minted", "KeptMinted": "kept_minted",
    "chain_gate": "page", "page_stage": "page", "publish_page": "page",
    "pin_bytes": "pin", "pin_content": "pin", "pin_pieces": "pin", "PinItem": "pin",
    "piece_pointer": "publish", "pin_metadata_directory": "publish", "Publication": "publish",
    "publish_metadata": "publish", "record_manifest": "publish",
    "judge": "screen", "stored_verdicts": "screen", "StoredVerdict": "screen",
    "validate_candidates": "validate",
    "art_committed_before_reveal": "withheld", "pin_placeholders": "withheld", "publication_backend": "withheld",
    "settings_key": "verdict_key",
    "record_verdicts_of": "screen",
})
