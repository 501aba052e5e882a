"""Allowlist Merkle trees exactly as @openzeppelin/merkle-tree's StandardMerkleTree builds them (encoding ["address"]).

leaf = keccak256(keccak256(abi.encode(address))); leaves sorted by hash; the tree is an array of 2n-1 nodes with
the leaves at the end in reverse order and node i = keccak256(sorted(child 2i+1, child 2i+2)); the root is node 0.
OpenZeppelin's MerkleProof.verify (sorted pairs) accepts the proofs, and `dump()` is the library's "standard-v1"
JSON, so `StandardMerkleTree.load` reads it. Hashing runs in batches (keccak_batch): a million addresses are a
few array passes, not four million library calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from eth_utils import keccak

from mintprep.chain.eip55 import checksum_digits
from mintprep.chain.keccak_batch import keccak256_many, sorted_pair_hashes

LEAF_ENCODING = ["address"]
_ABI_PADDING = 12  # abi.encode(address): 12 zero bytes, then the 20 address bytes


def raw_addresses(addresses: list[str]) -> np.ndarray:
    """(n, 20) uint8 from 0x-hex addresses (any case)."""
    return np.frombuffer(b"".join(bytes.fromhex(a[2:]) for a in addresses), dtype=np.uint8).reshape(-1, 20)


def leaf_hashes(raw: np.ndarray) -> np.ndarray:
    encoded = np.zeros((len(raw), 32), dtype=np.uint8)
    encoded[:, _ABI_PADDING:] = raw
    return keccak256_many(encoded, rounds=2)


def leaf_hash(address: str) -> bytes:
    return bytes(leaf_hashes(raw_addresses([address]))[0])


def node_hash(a: bytes, b: bytes) -> bytes:
    return keccak(b"".join(sorted((a, b))))


def process_proof(leaf: bytes, proof: list[bytes]) -> bytes:
    """The root a proof leads to, as MerkleProof.processProof computes it."""
    for sibling in proof:
        leaf = node_hash(leaf, sibling)
    return leaf


def verify(root: bytes, address: str, proof: list[bytes]) -> bool:
    return process_proof(leaf_hash(address), proof) == root


def checksummed(raw: np.ndarray) -> tuple[str, ...]:
    """(n, 20) uint8 addresses as EIP-55 strings."""
    lower = np.frombuffer(np.ascontiguousarray(raw).tobytes().hex().encode("ascii"), dtype=np.uint8).reshape(-1, 40)
    text = checksum_digits(lower).tobytes().decode("ascii")
    return tuple("0x" + text[i:i + 40] for i in range(0, len(text), 40))


def row_order(rows: np.ndarray) -> np.ndarray:
    """Indices that sort (n, w) uint8 rows ascending as byte strings, equal rows in their given order. By the first
    8 bytes (one argsort: hashes and random addresses rarely share them), by every byte only when two rows do."""
    head = np.ascontiguousarray(rows[:, :8]).view(">u8").ravel()
    order = np.argsort(head, kind="stable")
    if (head[order[1:]] == head[order[:-1]]).any():
        order = np.lexsort(rows.T[::-1])
    return order


@dataclass(frozen=True, eq=False)
class AllowlistTree:
    raw: np.ndarray  # (n, 20) uint8 addresses in the file's order
    nodes: np.ndarray  # (2n-1, 32) uint8, StandardMerkleTree's array
    leaf_index: np.ndarray  # (n,) int64: the node index of each address's leaf, in the file's order
    _positions: dict[bytes, int] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, addresses: list[str]) -> AllowlistTree:
        if not addresses:
            raise ValueError("an allowlist needs at least one address")
        return cls.build(raw_addresses(addresses))

    @classmethod
    def build(cls, raw: np.ndarray) -> AllowlistTree:
        count = len(raw)
        if count == 0:
            raise ValueError("an allowlist needs at least one address")
        leaves = leaf_hashes(raw)
        order = row_order(leaves)  # order[k]: the file position of the k-th smallest leaf
        ranked = leaves[order]
        if (ranked[1:] == ranked[:-1]).all(axis=1).any():
            raise ValueError("an address is listed twice")
        size = 2 * count - 1
        nodes = np.empty((size, 32), dtype=np.uint8)
        nodes[size - count:] = ranked[::-1]
        leaf_index = np.empty(count, dtype=np.int64)
        leaf_index[order] = size - 1 - np.arange(count)
        high = count - 1  # internal nodes are 0 .. count-2; a batch needs its children computed already
        while high > 0:
            low = max(0, high // 2)
            nodes[low:high] = sorted_pair_hashes(nodes[2 * low + 1:2 * high:2], nodes[2 * low + 2:2 * high + 1:2])
            high = low
        return cls(np.ascontiguousarray(raw), nodes, leaf_index)

    @property
    def root(self) -> bytes:
        return bytes(self.nodes[0])

    def __len__(self) -> int:
        return len(self.raw)

    @property
    def addresses(self) -> tuple[str, ...]:
        """Checksummed, in the file's order (computed on demand: a long list is mostly handled as arrays)."""
        return checksummed(self.raw)

    def proof(self, address: str) -> list[bytes]:
        """Sibling hashes from the address's leaf to the root; KeyError when it is not listed."""
        if not self._positions:
            self._positions.update({bytes(row): i for i, row in enumerate(self.raw)})
        i = int(self.leaf_index[self._positions[bytes.fromhex(address[2:])]])
        proof = []
        while i > 0:
            proof.append(bytes(self.nodes[i + 1 if i % 2 else i - 1]))
            i = (i - 1) // 2
        return proof

    def proofs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every address's proof at once: ((n, depth, 32) sibling hashes, (n,) proof lengths), in the file's order."""
        index = self.leaf_index.copy()
        depth = int(np.floor(np.log2(len(self.nodes)))) if len(self.nodes) > 1 else 0
        siblings = np.zeros((len(index), depth, 32), dtype=np.uint8)
        lengths = np.zeros(len(index), dtype=np.int64)
        for level in range(depth):
            live = index > 0
            if not live.any():
                break
            sibling = np.where(index % 2 == 1, index + 1, index - 1)
            siblings[live, level] = self.nodes[sibling[live]]
            lengths += live
            index = np.where(live, (index - 1) // 2, 0)
        return siblings, lengths

    def dump(self) -> dict[str, Any]:
        """StandardMerkleTree.dump()'s "standard-v1" JSON (for tools that load OpenZeppelin's format)."""
        return {
            "format": "standard-v1",
            "leafEncoding": LEAF_ENCODING,
            "tree": ["0x" + bytes(node).hex() for node in self.nodes],
            "values": [{"value": [a], "treeIndex": int(i)} for a, i in zip(self.addresses, self.leaf_index)],
        }


def roots_of_proofs(raw: np.ndarray, siblings: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(n, 32): the root each address's proof leads to (MerkleProof.processProof, for every address at once)."""
    current = leaf_hashes(raw)
    for level in range(siblings.shape[1] if siblings.ndim == 3 else 0):
        live = lengths > level
        if live.any():
            current[live] = sorted_pair_hashes(current[live], siblings[live, level])
    return current
