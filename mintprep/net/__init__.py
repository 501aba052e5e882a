"""Talking to remote services: one HTTP layer with deadlines, retries and pooled sessions, URL checks and redaction,
the networks `chain.network` names, the marketplace refresh client. Imports only mintprep.base.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "DeadlineSession": "http", "json_object": "http", "pooled_session": "http", "RetryPolicy": "http", "send": "http",
    "collection_url": "marketplace", "refresh_minted_tokens": "marketplace",
    "Network": "networks", "network": "networks", "NetworkName": "networks", "NETWORKS": "networks",
    "KEY_LIKE": "urls", "PrivateUrl": "urls", "PublicUrl": "urls", "redact": "urls", "redact_url": "urls",
    "AnswerTooLarge": "http",
})
