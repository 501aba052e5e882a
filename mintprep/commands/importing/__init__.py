"""`mintprep import`: adopt a collection made elsewhere, so audit, repair, status and the page work on it.

The source is a contract address (its family and roles from its profile, mintprep.chain.profile; its minted ids,
base URI or per-token URIs read over RPC), an `ipfs://` metadata root, or a local folder of images and metadata.
Everything fetched from IPFS is verified block by block against its CID (a gateway is not trusted), the blocks
are pinned on the collection's backend under their own CIDs (a healthy token keeps its CIDs byte for byte), and
the ledger records each token as an imported piece with the traits and provenance its metadata carries.

Every image must be a raster image within size and pixel limits and every document bounded JSON
(mintprep.guards.imported_content) before anything is recorded; a token that is not is skipped, named, and the
import exits 1. The recording is journaled: a killed import is finished by running it again, and importing again
from the same source (a folder fixed since) updates what changed.

One reader per kind of source, each yielding tokens read and checked (`tokens.py` says what they yield):
`contract.py`, `ipfs_root.py` and `folder.py` (a large folder read in worker processes while this one records,
`folder_reads.py`); `driver.py` picks the reader in one place and `recording.py` records what it yields in numbered
steps, a batch of tokens at a time, so memory holds one batch of images, not the collection. A contract source's
minted tokens are read and verified one at a time first, as every one must be readable before anything is
written; then every token is read again as it is recorded (from the block cache, or the source again past its
bound), never all held at once. On the local store each image and document is one file (its block a hard link to
its object): creating a file is what this project's disk charges most for.
"""

from mintprep.base import face

# Loaded on first use (mintprep.base.lazy_face): a folder reader's worker (`python -m ...folder_reads`) imports this
# package first, and needs none of the drivers (the readers of contracts and IPFS roots, their HTTP and chain
# clients: loaded, they made a worker's start 0.7 s of wall, 0.3 s without).
__all__, __getattr__ = face(__name__, {
    "import_collection": "driver", "parse_source": "driver",
    "ImportedToken": "tokens", "ImportPlan": "tokens",
})
