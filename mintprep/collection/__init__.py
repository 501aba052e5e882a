"""The collection model: collection.yaml and its loading, the `chain:` and `page:` settings it composes, prompt
templates, trait draws, rarity, the ERC-721 metadata and manifest formats, and a hidden drop's placeholders.
Pure: reads files only, takes no ledger.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "NEVER": "chain_settings", "PhaseSettings": "chain_settings", "VerifySettings": "chain_settings",
    "WEI_PER_ETH": "chain_settings",
    "Collection": "config", "collection_schema": "config", "CollectionSpec": "config", "load_collection": "config",
    "read_collection": "config", "replaced_folders": "config", "check_own_folders": "own_folders",
    "base_uri_for": "manifest", "build_manifest": "manifest", "COLLECTION_METADATA_NAME": "manifest",
    "contract_uri_for": "manifest", "Manifest": "manifest", "ManifestToken": "manifest", "metadata_files": "manifest",
    "PinnedPiece": "manifest", "provenance_hash": "manifest", "token_file_name": "manifest", "token_name": "manifest",
    "PublishSettings": "page_settings",
    "rarity_report": "rarity", "RarityReport": "rarity",
    "checked_document": "token_document", "metadata_errors": "token_document",
    "PiecePlan": "traits", "plan_collection": "traits", "token_ids": "token_range",
    "placeholder_documents": "unrevealed", "Placeholders": "unrevealed",
    "BY_NAME": "known_families",
    "ERC721": "known_families",
    "FamilyEntry": "known_families",
    "KNOWN": "known_families",
    "Profile": "contract_roles",
    "ROLES": "contract_roles",
    "UriForm": "contract_roles",
    "abi_fragment": "contract_signatures",
    "abi_signatures": "contract_signatures",
    "argument_types": "contract_signatures",
    "code_selectors": "contract_signatures",
    "selector": "contract_signatures", "TRANSFER_TOPIC": "contract_signatures",
    "ChainSettings": "chain_settings",
    "ProfileSettings": "chain_settings",
    "SEED_FROM_WORDS": "traits",
    "SeedFrom": "traits",
    "companion": "companions",
    "plan_seed": "traits",
    "read_recipe_log": "recipe",
    "THIRDWEB_CLAIM": "known_families",
})
