"""Allowlist Merkle trees exactly as @openzeppelin/merkle-tree's StandardMerkleTree builds them (encoding ["address"]).

leaf = keccak256(keccak256(abi.encode(address))); leaves sorted by hash; the tree is an array of 2n-1 nodes with
the leaves at the end in reverse order and node i = keccak256(sorted(child 2i+1, child 2i+2)); the root is node 0.
OpenZeppelin's MerkleProof.verify (sorted pairs) accepts the proofs, and `dump()` is the library's "standard-v1"
JSON, so `StandardMerkleTree.load` reads what the page publishes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eth_abi import encode
from eth_utils import is_address, keccak, to_checksum_address

from mintprep.base.errors import ConfigError

LEAF_ENCODING = ["address"]


def leaf_hash(address: str) -> bytes:
    return keccak(keccak(encode(LEAF_ENCODING, [to_checksum_address(address)])))


def node_hash(a: bytes, b: bytes) -> bytes:
    return keccak(b"".join(sorted((a, b))))


def process_proof(leaf: bytes, proof: list[bytes]) -> bytes:
    """The root a proof leads to, as MerkleProof.processProof computes it."""
    for sibling in proof:
        leaf = node_hash(leaf, sibling)
    return leaf


def verify(root: bytes, address: str, proof: list[bytes]) -> bool:
    return process_proof(leaf_hash(address), proof) == root


@dataclass(frozen=True)
class AllowlistTree:
    addresses: tuple[str, ...]  # checksummed, in the file's order
    nodes: tuple[bytes, ...]
    tree_index: dict[str, int]  # checksummed address -> its leaf's node index

    @classmethod
    def of(cls, addresses: list[str]) -> AllowlistTree:
        if not addresses:
            raise ValueError("an allowlist needs at least one address")
        listed = tuple(to_checksum_address(a) for a in addresses)
        if len(set(listed)) != len(listed):
            raise ValueError("an address is listed twice")
        hashed = sorted((leaf_hash(a), position) for position, a in enumerate(listed))
        size = 2 * len(hashed) - 1
        nodes: list[bytes] = [b""] * size
        index: dict[str, int] = {}
        for leaf_number, (digest, position) in enumerate(hashed):
            nodes[size - 1 - leaf_number] = digest
            index[listed[position]] = size - 1 - leaf_number
        for i in range(size - 1 - len(hashed), -1, -1):
            nodes[i] = node_hash(nodes[2 * i + 1], nodes[2 * i + 2])
        return cls(listed, tuple(nodes), index)

    @property
    def root(self) -> bytes:
        return self.nodes[0]

    def proof(self, address: str) -> list[bytes]:
        """Sibling hashes from the address's leaf to the root; KeyError when it is not listed."""
        i = self.tree_index[to_checksum_address(address)]
        proof = []
        while i > 0:
            proof.append(self.nodes[i - (-1) ** (i % 2)])
            i = (i - 1) // 2
        return proof

    def dump(self) -> dict[str, Any]:
        """StandardMerkleTree.dump()'s "standard-v1" JSON: what the page reads to build a buyer's proof."""
        return {
            "format": "standard-v1",
            "leafEncoding": LEAF_ENCODING,
            "tree": ["0x" + node.hex() for node in self.nodes],
            "values": [{"value": [a], "treeIndex": self.tree_index[a]} for a in self.addresses],
        }


def read_allowlist(path: Path, where: str) -> list[str]:
    """Addresses from a text or CSV file: one per line, first column; blank lines and `#` comments skipped.

    ConfigError naming `where` (the YAML path) and the line of the first bad entry.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read {path} ({type(exc).__name__})") from None
    addresses = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].split(",", 1)[0].strip()
        if not entry or (number == 1 and entry.lower() == "address"):
            continue
        if not is_address(entry):
            raise ConfigError(f"{where}: {path} line {number}: not an address: {entry[:60]!r}")
        addresses.append(to_checksum_address(entry))
    if not addresses:
        raise ConfigError(f"{where}: {path} lists no address")
    if len(set(addresses)) != len(addresses):
        duplicate = next(a for a in addresses if addresses.count(a) > 1)
        raise ConfigError(f"{where}: {path} lists {duplicate} twice")
    return addresses
