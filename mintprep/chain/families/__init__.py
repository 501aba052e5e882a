"""Contract families: read and repair the ERC-721 shapes real collections use, through one small face.

A family is detected from the chain (ERC-165 `supportsInterface`, view functions probed with eth_call), never
assumed from the config: MintprepDrop (ours), the HashLips tutorial contract (ERC721Enumerable, ids from 1,
tokenURI = base + id + baseExtension), the ERC721A shape (ids from `_startTokenId()`, tokenURI = base + id)
and per-token URIs (OpenZeppelin ERC721URIStorage). Each answers the same questions: which ids are minted,
what `tokenURI(id)` says, what an unminted id's URI would be, who the owner is, and which calls (if any) point
the contract at new metadata.
"""

from mintprep.chain.families.base import ContractCall, Family
from mintprep.chain.families.detect import detect_family
from mintprep.chain.families.live import LiveState, read_live
from mintprep.chain.families.update import can_update, metadata_calls

__all__ = ["ContractCall", "Family", "LiveState", "can_update", "detect_family", "metadata_calls", "read_live"]
