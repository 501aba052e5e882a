"""Pointing a contract of any family at a newly written metadata directory: which calls, and whether it can."""

from __future__ import annotations

from collections.abc import Iterable

from mintprep.chain.profile.contract import ContractCall
from mintprep.chain.profile.live import LiveState
from mintprep.collection import Manifest, base_uri_for, contract_uri_for

PROBE_URI = "ipfs://bafkqaaa/"  # the empty identity CID: a harmless value to simulate a setter with


def metadata_calls(live: LiveState, manifest: Manifest, replaced: Iterable[int] | None = None
                   ) -> list[ContractCall] | None:
    """The calls that move the contract to `manifest`, for `audit --repair` and `contract set-base-uri` alike: the
    family's base setter pointed at the new root (for batches, only the batches holding a replaced token; every
    batch when `replaced` is None), setTokenURI for each replaced minted token of a per-token family (every token
    of the manifest when None; no other token's URI is touched). [] when the chain already agrees; None when the
    family has no setter its admin can call."""
    tokens = manifest.by_token()
    if live.family.token_suffix is not None:
        base, contract_uri = base_uri_for(manifest.metadata_root), contract_uri_for(manifest.metadata_root)
        if live.family.profile.uri_form == "batches":
            return live.family.base_uri_calls(base, contract_uri, None if replaced is None else list(replaced))
        return [] if live.base_uri == base else live.family.base_uri_calls(base, contract_uri)
    replaced = tokens if replaced is None else list(replaced)
    wanted = {t: f"ipfs://{tokens[t].metadata_cid}" for t in replaced if t in tokens and t in live.token_uris}
    changed = {t: uri for t, uri in wanted.items() if live.token_uris[t] != uri}
    return live.family.token_uri_calls(changed) if changed else []


def can_update(live: LiveState, replaced: Iterable[int]) -> bool:
    """Whether the admin could make the calls a repair needs (simulated, nothing sent)."""
    replaced = list(replaced)
    if live.family.token_suffix is not None:
        return live.family.base_uri_calls(PROBE_URI, "", replaced or None) is not None
    return live.family.token_uri_calls({t: PROBE_URI for t in replaced[:1]}) is not None
