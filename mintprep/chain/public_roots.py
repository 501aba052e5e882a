"""No private CIDs on a public chain: a contract reached through a non-loopback RPC is pointed only at metadata
some pinning service holds, never at blocks that exist in this machine's embedded store alone.

Loopback is decided from the URL as written (`localhost`, `*.localhost` per RFC 6761, or an IP literal in
127.0.0.0/8 or ::1), never by resolving the name: a name that happens to resolve to this machine today (an
/etc/hosts entry, a tunnel) may reach a public chain tomorrow.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from mintprep.base import UserError
from mintprep.collection import Collection
from mintprep.net import redact_url
from mintprep.state import Ledger

LOCAL_BACKEND = "local"


def is_loopback_rpc(rpc_url: str) -> bool:
    host = (urlsplit(rpc_url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def held_elsewhere(ledger: Ledger, root: str) -> bool:
    """A pin of `root` on a backend other than the embedded store is on record (and not unpinned)."""
    return any(pin["cid"] == root and pin["backend"] != LOCAL_BACKEND for pin in ledger.active_pins())


def require_public_root(col: Collection, ledger: Ledger, rpc_url: str, root: str | None) -> None:
    """UserError (before any transaction) when `rpc_url` is not loopback and `root` is only in the local store;
    `root` None: a root still to be made (by a repair), which goes where `ipfs.backend` pins."""
    if is_loopback_rpc(rpc_url):
        return
    if held_elsewhere(ledger, root) if root is not None else col.spec.ipfs.backend != LOCAL_BACKEND:
        return
    what = f"ipfs://{root}/" if root is not None else "new metadata"
    raise UserError(
        f"refusing to point the contract on {redact_url(rpc_url)} at {what}: its blocks are only in this "
        f"machine's local store (ipfs.backend {col.spec.ipfs.backend!r}), so collectors could never load them. "
        "Set ipfs.backend to pinata, psa or kubo (a node that serves the network), run `mintprep run` to pin "
        "there, then try again; a dev chain on a loopback RPC (127.0.0.1, localhost) is allowed as is",
        field="ipfs.backend")
