"""Content addressing (kubo-exact UnixFS importer, CIDs, CAR), reading and verifying DAGs, the embedded block store
and gateway, and the pinning backends.

This module is the package's public face: other packages import from `mintprep.ipfs`, never from its submodules.
Names load on first use (PEP 562 `__getattr__`), so `from mintprep.ipfs import PROFILE_NAMES` costs the CLI no
requests, no backends and no importer.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# name -> submodule that defines it
_FACE = {
    "make_backend": "backends", "PinBackend": "backends", "PinRequest": "backends", "LocalBackend": "backends",
    "write_car": "car",
    "CID": "cid",
    "BlockFetcher": "dag", "NetworkReads": "dag", "VerifiedBlocks": "dag", "fetch_verified": "dag",
    "first_verified": "dag",
    "walk_dag": "dag",
    "Unreadable": "errors", "BlockNotFound": "errors", "CorruptBlock": "errors", "FileTooLarge": "errors",
    "NotUnixFS": "errors", "TooLarge": "errors",
    "TrustlessGateway": "gateway", "serve_gateway": "gateway",
    "import_path": "importpath",
    "PROFILE_NAMES": "profile_names",
    "content_sha256": "reader", "file_sha256": "reader", "iter_file": "reader", "list_directory": "reader",
    "read_file": "reader", "file_budget": "reader",
    "IpfsSettings": "settings",
    "BlockStore": "store",
    "Block": "unixfs", "DagImport": "unixfs", "Profile": "unixfs", "add_options": "unixfs", "get_profile": "unixfs",
    "import_bytes": "unixfs", "import_directory": "unixfs",
    "ipfs_path": "uri", "resolve": "uri",
    "verify_dag": "verify",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    if name not in _FACE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_FACE[name]}"), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


if TYPE_CHECKING:
    from mintprep.ipfs.backends import LocalBackend, PinBackend, PinRequest, make_backend
    from mintprep.ipfs.car import write_car
    from mintprep.ipfs.cid import CID
    from mintprep.ipfs.dag import BlockFetcher, NetworkReads, VerifiedBlocks, fetch_verified, first_verified, walk_dag
    from mintprep.ipfs.errors import BlockNotFound, CorruptBlock, FileTooLarge, NotUnixFS, TooLarge, Unreadable
    from mintprep.ipfs.gateway import TrustlessGateway, serve_gateway
    from mintprep.ipfs.importpath import import_path
    from mintprep.ipfs.profile_names import PROFILE_NAMES
    from mintprep.ipfs.reader import content_sha256, file_budget, file_sha256, iter_file, list_directory, read_file
    from mintprep.ipfs.settings import IpfsSettings
    from mintprep.ipfs.store import BlockStore
    from mintprep.ipfs.unixfs import Block, DagImport, Profile, add_options, get_profile, import_bytes, import_directory
    from mintprep.ipfs.uri import ipfs_path, resolve
    from mintprep.ipfs.verify import verify_dag
