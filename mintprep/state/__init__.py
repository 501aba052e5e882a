"""Everything under a collection's `.mintprep/`: the ledger, the object store, the drop log, the fingerprint cache,
the Workspace a command opens, and the questions asked of the ledger (which contract a collection has; which token
ids stay published; whether a hidden drop's art was released).

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "ThumbnailCache": "thumbnail_cache",
    "deployed_address": "contract_address", "find_contract": "contract_address",
    "append_drops": "drops", "attempt_drop": "drops", "imported_drop": "drops", "logged_decisions": "drops",
    "AttemptRow": "ledger", "GenerationRow": "ledger", "IMPORTED_KEY": "ledger", "IMPORTED_TX": "ledger",
    "JournalEntry": "ledger", "Ledger": "ledger", "ManifestRecord": "ledger", "PieceRecord": "ledger",
    "PinRow": "ledger", "VerdictRow": "ledger",
    "ObjectStore": "objects",
    "complete_publication": "published", "published_ids": "published", "published_under": "published",
    "require_recorded_base_uri": "published",
    "released": "release", "RELEASED_KIND": "release", "withholding": "release",
    "hidden_drop": "release", "withholds": "release", "released_among": "release", "StatusRead": "ledger",
    "Workspace": "workspace",
})
