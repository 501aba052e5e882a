"""Content addressing (kubo-exact UnixFS importer, CIDs, CAR), reading and verifying DAGs, the embedded block store
and gateway, and the pinning backends.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "make_backend": "backends",
    "PinBackend": "backends.base", "PinRequest": "backends.base",
    "LocalBackend": "backends.local",
    "write_car": "car",
    "CID": "cid",
    "BlockFetcher": "dag", "fetch_verified": "dag", "first_verified": "dag", "NetworkReads": "dag",
    "VerifiedBlocks": "dag", "walk_dag": "dag",
    "BlockNotFound": "errors", "CorruptBlock": "errors", "FileTooLarge": "errors", "NotUnixFS": "errors",
    "TooLarge": "errors", "Unreadable": "errors",
    "serve_gateway": "gateway", "TrustlessGateway": "gateway",
    "import_path": "importpath",
    "PROFILE_NAMES": "profile_names",
    "content_sha256": "reader", "file_sha256": "reader", "iter_file": "reader", "list_directory": "reader",
    "read_file": "reader", "file_budget": "reader",
    "IpfsSettings": "settings",
    "BlockStore": "store",
    "add_options": "unixfs", "Block": "unixfs", "DagImport": "unixfs", "get_profile": "unixfs",
    "import_bytes": "unixfs", "import_directory": "unixfs", "Profile": "unixfs",
    "ipfs_path": "uri", "resolve": "uri",
    "verify_dag": "verify",
})
